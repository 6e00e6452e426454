"""The two-step evaluation: a rater's units, the grammaticality and meaning steps, re-evaluation, and
the lead's setup page.

A judgement is given by walking a decision tree one question at a time: each answer POSTs the answers
so far to `judgement-save`, which answers with the `judgement` partial showing the next question, or,
once the answers reach a label, saves it (version-checked) and shows the label with the client event
`judgement-saved`. A stale version answers 409, a broken rule 422, both with the partial and the
message at the spot (the pages let htmx swap those codes). Without JavaScript the same forms work
through full-page POSTs and redirects.

Step 1's page never contains the original sentence or phrase: it is built only from the items'
paraphrased sentences, and the unit's source text is not in its context at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseLocation, trigger_client_event

from annotator import access
from annotator.agreement import current_figures
from annotator.annotation.services import ConflictError
from annotator.core import counts
from annotator.core.web_request import SignedInRequest
from annotator.evaluation import decision_trees, reevaluation
from annotator.evaluation import services as evaluation
from annotator.evaluation.forms import AssignForm, LexiconBuildForm, ReevaluationForm, UnitForm, first_errors
from annotator.evaluation.lexicon_chart import threshold_charts
from annotator.evaluation.lexicons import lexicon_precision, lexicon_rows
from annotator.evaluation.stats import (
    lead_summary_context,
    project_precision,
    rater_progress,
    snapshot_measures,
)
from annotator.models import Assignment, CorpusJob, EvaluationItem, EvaluationUnit, Judgement, Project

Step = Assignment.Step
Phase = Judgement.Phase
UNITS_SHOWN = 100  # the lead page lists this many units; the rest are counted
STEP_PAGES: dict[str, str] = {
    Step.GRAMMATICALITY: "annotator:unit-grammaticality",
    Step.MEANING: "annotator:unit-meaning",
}


# ---- the judgement card: one item × step × phase --------------------------------------------------


@dataclass
class Card:
    """What the `judgement` partial shows for one item, step and phase."""

    item: EvaluationItem
    step: str
    phase: str
    judgement: Judgement | None
    earlier: Judgement | None = None  # re-evaluation: the rater's initial judgement
    marked: bool = False
    pending: dict[str, str] | None = None  # answers so far while walking the tree
    error: str = ""
    editable: bool = True

    @property
    def dom_id(self) -> str:
        return f"judgement-{self.item.pk}-{self.step}"

    @property
    def tree(self) -> decision_trees.Tree:
        return decision_trees.TREES[self.step]

    @property
    def walking(self) -> bool:
        return self.editable and (self.pending is not None or self.judgement is None and self.earlier is None)

    @property
    def walk(self) -> decision_trees.Walk:
        return decision_trees.walk(self.step, self.pending or {})

    @property
    def shown(self) -> Judgement | None:
        return self.judgement or self.earlier

    @property
    def version(self) -> int:
        return self.judgement.version if self.judgement else 0


@dataclass
class ItemRow:
    item: EvaluationItem
    cards: list[Card] = field(default_factory=list)
    grammaticality: Judgement | None = None  # shown read-only on step 2

    @property
    def parts(self) -> tuple[str, str, str]:
        """The paraphrased sentence split around the substituted words (to highlight them)."""
        s, start, end = self.item.sentence, self.item.substitution_start, self.item.substitution_end
        return s[:start], s[start:end], s[end:]


WALKS_KEY = "evaluation-walks"  # the session's half-answered decision trees: "phase:item:step" → answers


def _walk_key(phase: str, item_pk: int, step: str) -> str:
    return f"{phase}:{item_pk}:{step}"


def _remember_walk(request: SignedInRequest, card: Card, answers: dict[str, str]) -> None:
    """Keep a half-answered tree in the rater's session, so a reload shows the answers given so far."""
    walks = dict(request.session.get(WALKS_KEY, {}))
    key = _walk_key(card.phase, card.item.pk, card.step)
    if walks.get(key) == (answers or None):
        return  # nothing to write: a save of a tree answered in one go costs no session write
    if answers:
        walks[key] = answers
    else:
        walks.pop(key, None)
    request.session[WALKS_KEY] = walks


def _cards(
    unit: EvaluationUnit,
    rater: Any,
    steps: list[str],
    phase: str,
    *,
    editable: bool,
    marks: Any = None,
    walks: dict[str, dict[str, str]] | None = None,
) -> list[ItemRow]:
    mine = evaluation.judgements_of(unit, rater)
    revised = (
        evaluation.judgements_of(unit, rater, phase=Phase.REEVALUATION) if phase == Phase.REEVALUATION else {}
    )
    rows = []
    for item in unit.items.all():
        row = ItemRow(item, grammaticality=mine.get((item.pk, Step.GRAMMATICALITY)))
        for step in steps:
            if phase == Phase.REEVALUATION:
                card = Card(
                    item,
                    step,
                    phase,
                    revised.get((item.pk, step)),
                    earlier=mine.get((item.pk, step)),
                    marked=bool(marks and step in marks.of(item.pk)),
                    editable=editable,
                )
            else:
                card = Card(item, step, phase, mine.get((item.pk, step)), editable=editable)
            half = (walks or {}).get(_walk_key(phase, item.pk, step))
            if half and editable:
                card.pending = half
            row.cards.append(card)
        rows.append(row)
    return rows


def _answers(post: Any, step: str) -> tuple[dict[str, str], bool]:
    """Answers posted as `a.<question id>`; `restart=<question id>` drops that answer and the later ones."""
    answers = {key[2:]: value for key, value in post.items() if key.startswith("a.") and value}
    restart = post.get("restart")
    if restart is None:
        return answers, False
    kept: dict[str, str] = {}
    for question, option in decision_trees.walk(step, answers).path:
        if question.id == restart:
            break
        kept[question.id] = option.value
    return kept, True


# ---- pages ------------------------------------------------------------------------------------------


@require_GET
def rating_queue(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """The rater's units: open ones, postponed ones (they come back last), finished ones, re-evaluation;
    a page of 100 at a time of each round (read with LIMIT/OFFSET, so a long queue costs what a short
    one does), with the totals counted in the database."""
    project = access.project_for_member(request.user, project_pk)
    totals = evaluation.queue_counts(project, request.user)
    page = _queue_page(evaluation.rating_queue(project, request.user), totals.total, request.GET.get("page"))
    rows = list(page.object_list)
    again_counts = evaluation.queue_counts(project, request.user, round=evaluation.REEVALUATION_ROUND)
    round1 = evaluation.rating_queue(project, request.user, round=evaluation.REEVALUATION_ROUND)
    again = _queue_page(round1, again_counts.total, request.GET.get("again"))
    reevaluation_rows = list(again.object_list) if again_counts.total else []
    reevaluation_next = None
    if again_counts.open or again_counts.postponed:
        reevaluation_next = evaluation.next_unit(project, request.user, round=evaluation.REEVALUATION_ROUND)
    context = {
        "project": project,
        "page": page,
        "again": again,
        "open": [a for a in rows if a.status in (Assignment.Status.TODO, Assignment.Status.IN_PROGRESS)],
        "postponed": [a for a in rows if a.status == Assignment.Status.POSTPONED],
        "finished": [a for a in rows if a.status == Assignment.Status.DONE],
        "reevaluation": reevaluation_rows,
        "reevaluation_next": reevaluation_next,
        "next": evaluation.next_unit(project, request.user),
        "counts": totals,
        "done": totals.done,
        "total": totals.total,
        "percent": totals.percent,
        "is_project_lead": access.is_lead(request.user, project),
        "reevaluation_started": again_counts.total > 0 or reevaluation.has_started(project),
    }
    return render(request, "evaluation/rating_queue.html", context)


def _queue_page(queue: Any, total: int, number: str | None) -> Any:
    """One page of a rating queue whose length `queue_counts` already counted (no second count)."""
    paginator = Paginator(queue, evaluation.QUEUE_PAGE_SIZE)
    paginator.count = total  # type: ignore[misc]  # the cached count, known already
    return paginator.get_page(number)


def _step_page(
    request: SignedInRequest, unit: EvaluationUnit, assignment: Assignment, step: str, **extra: Any
) -> HttpResponse:
    template = f"evaluation/unit_{step}.html"
    editable = assignment.step == step
    steps = [step]
    walks = request.session.get(WALKS_KEY, {})
    rows = _cards(unit, request.user, steps, Phase.INITIAL, editable=editable, walks=walks)
    pending = extra.pop("pending", None)
    if pending:
        for row in rows:
            for card in row.cards:
                if card.item.pk == pending["item"]:
                    card.pending, card.error = pending["answers"], pending.get("error", "")
    judged = sum(1 for row in rows if row.cards[0].judgement is not None)
    context = {
        "project": unit.project,
        "unit": unit,
        "assignment": assignment,
        "rows": rows,
        "judged": judged,
        "n_items": len(rows),
        "step": step,
        "position": _position(unit, request.user),
        "trees": decision_trees.TREES,
        **extra,
    }
    if step == Step.MEANING:
        context["original"] = _original_parts(unit)
    if request.htmx and request.htmx.target == "unit-actions":
        return render(request, f"{template}#unit-actions", context)
    return render(request, template, context)


def _position(unit: EvaluationUnit, user: Any) -> dict[str, int]:
    """The unit's number (as in the rater's queue) and how many of the rater's units are still open."""
    left = Assignment.objects.filter(
        project_id=unit.project_id, annotator=user, round=evaluation.INITIAL_ROUND, unit__isnull=False
    ).exclude(status=Assignment.Status.DONE)
    return {"number": unit.position + 1, "left": left.count()}


def _original_parts(unit: EvaluationUnit) -> tuple[str, str, str]:
    s = unit.source_sentence
    return s[: unit.phrase_start], s[unit.phrase_start : unit.phrase_end], s[unit.phrase_end :]


@require_GET
def unit_grammaticality(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    """Step 1: the paraphrased sentences alone (the original is not in this page)."""
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    assignment = access.rating_assignment(request.user, unit, evaluation.INITIAL_ROUND)
    if assignment.step != Step.GRAMMATICALITY:
        return redirect("annotator:unit-meaning", project_pk, unit_pk)
    return _step_page(request, unit, assignment, Step.GRAMMATICALITY)


@require_GET
def unit_meaning(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    """Step 2: original and paraphrases together (read-only once the unit is finalized)."""
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    assignment = access.rating_assignment(request.user, unit, evaluation.INITIAL_ROUND)
    if assignment.step == Step.GRAMMATICALITY:
        return redirect("annotator:unit-grammaticality", project_pk, unit_pk)
    return _step_page(request, unit, assignment, Step.MEANING)


def unit_page_url(unit: EvaluationUnit, assignment: Assignment) -> str:
    if assignment.round == evaluation.REEVALUATION_ROUND:
        return reverse("annotator:unit-reevaluation", args=[unit.project_id, unit.pk])
    page = STEP_PAGES.get(assignment.step, "annotator:unit-meaning")
    return reverse(page, args=[unit.project_id, unit.pk])


# ---- saving a judgement -----------------------------------------------------------------------------


def _card_for(request: SignedInRequest, item: EvaluationItem, step: str, phase: str) -> Card:
    own = Judgement.objects.filter(item=item, rater=request.user, step=step, phase=phase).first()
    if phase == Phase.REEVALUATION:
        earlier = Judgement.objects.filter(
            item=item, rater=request.user, step=step, phase=Phase.INITIAL
        ).first()
        marks = reevaluation.marks_for(item.unit.project, request.user)
        return Card(item, step, phase, own, earlier=earlier, marked=step in marks.of(item.pk))
    return Card(item, step, phase, own)


def _card_response(request: SignedInRequest, card: Card, status: int = 200) -> HttpResponse:
    return render(
        request,
        "evaluation/_judgement.html#judgement",
        {"card": card, "project": card.item.unit.project},
        status=status,
    )


@require_POST
def judgement_save(
    request: SignedInRequest, project_pk: int, unit_pk: int, item_pk: int, step: str
) -> HttpResponse:
    """One answer of the decision tree; saves the judgement once the answers reach a label."""
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    item = get_object_or_404(EvaluationItem.objects.select_related("unit__project"), unit=unit, pk=item_pk)
    if step not in decision_trees.TREES:
        raise Http404("No such step.")
    phase = request.POST.get("phase", Phase.INITIAL)
    card = _card_for(request, item, step, phase if phase in Phase.values else Phase.INITIAL)
    if "cancel" in request.POST:  # keep the label as it is
        _remember_walk(request, card, {})
        return (
            _card_response(request, card)
            if request.htmx
            else redirect(_page_after_save(unit, request.user, phase))
        )
    try:
        answers, restarting = _answers(request.POST, step)
        walked = decision_trees.walk(step, answers)
    except ValidationError as exc:
        return _unsaved(request, unit, card, {}, first_errors(exc), 422)
    if restarting or walked.label is None:
        _remember_walk(request, card, walked.answers)
        return _unsaved(request, unit, card, walked.answers, "", 200)
    try:
        version = int(request.POST.get("version", "0"))
        card.judgement = evaluation.record_judgement(
            item, request.user, step, answers=walked.answers, phase=card.phase, base_version=version
        )
    except ConflictError as exc:
        return _unsaved(
            request, unit, _card_for(request, item, step, card.phase), walked.answers, str(exc), 409
        )
    except (ValidationError, ValueError) as exc:
        return _unsaved(request, unit, card, walked.answers, first_errors(exc), 422)
    _remember_walk(request, card, {})
    if not request.htmx:
        return redirect(_page_after_save(unit, request.user, card.phase))
    response = _card_response(request, card)
    return trigger_client_event(
        response, "judgement-saved", {"item": item.pk, "step": step, "label": card.judgement.label}
    )


def _page_after_save(unit: EvaluationUnit, user: Any, phase: str) -> str:
    round = evaluation.REEVALUATION_ROUND if phase == Phase.REEVALUATION else evaluation.INITIAL_ROUND
    assignment = unit.assignments.get(annotator=user, round=round)
    return unit_page_url(unit, assignment)


def _unsaved(
    request: SignedInRequest,
    unit: EvaluationUnit,
    card: Card,
    answers: dict[str, str],
    error: str,
    status: int,
) -> HttpResponse:
    """The card still walking the tree (nothing saved), with a message if something was wrong."""
    card.pending, card.error = answers, error
    if request.htmx:
        return _card_response(request, card, status)
    pending = {"item": card.item.pk, "answers": answers, "error": error, "step": card.step}
    if card.phase == Phase.REEVALUATION:
        return _reevaluation_page(request, unit, pending=pending, status=status)
    assignment = access.rating_assignment(request.user, unit, evaluation.INITIAL_ROUND)
    response = _step_page(
        request,
        unit,
        assignment,
        assignment.step if assignment.step in STEP_PAGES else Step.MEANING,
        pending=pending,
    )
    response.status_code = status
    return response


# ---- moving a unit along ------------------------------------------------------------------------------


def _unit_action(
    request: SignedInRequest, unit: EvaluationUnit, action: Any, success: str, failure_page: str
) -> HttpResponse:
    try:
        assignment = action(unit, request.user)
    except ValidationError as exc:
        messages.error(request, first_errors(exc))
        return _go(request, reverse(failure_page, args=[unit.project_id, unit.pk]))
    if success:
        messages.success(request, success)
    return _go(request, _after(unit, assignment, request.user))


def _after(unit: EvaluationUnit, assignment: Assignment, user: Any) -> str:
    if assignment.status in (Assignment.Status.DONE, Assignment.Status.POSTPONED):
        following = evaluation.next_unit(unit.project, user, round=assignment.round, after=unit.pk)
        if following is not None and following.unit_id != unit.pk and following.unit is not None:
            return unit_page_url(following.unit, following)
        return reverse("annotator:rating-queue", args=[unit.project_id])
    return unit_page_url(unit, assignment)


def _go(request: SignedInRequest, url: str) -> HttpResponse:
    if request.htmx:
        return HttpResponseLocation(url)
    return redirect(url)


@require_POST
def unit_grammaticality_submit(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    return _unit_action(request, unit, evaluation.submit_grammaticality, "", "annotator:unit-grammaticality")


@require_POST
def unit_finalize(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    return _unit_action(request, unit, evaluation.finalize_unit, "Unit finalized.", "annotator:unit-meaning")


@require_POST
def unit_postpone(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    round = evaluation.REEVALUATION_ROUND if request.POST.get("round") == "1" else evaluation.INITIAL_ROUND

    def postpone(u: EvaluationUnit, user: Any) -> Assignment:
        return evaluation.postpone_unit(u, user, round=round)

    page = "annotator:unit-reevaluation" if round else "annotator:unit-grammaticality"
    return _unit_action(
        request, unit, postpone, "Unit postponed: it comes back after your other units.", page
    )


# ---- re-evaluation ----------------------------------------------------------------------------------------


def _reevaluation_page(
    request: SignedInRequest, unit: EvaluationUnit, *, pending: Any = None, status: int = 200
) -> HttpResponse:
    """Grammaticality is re-judged first, without the original in view (as in the first pass); the
    meaning step (`?step=meaning`) shows the original beside the items."""
    round1 = unit.assignments.filter(annotator=request.user, round=evaluation.REEVALUATION_ROUND).first()
    marks = reevaluation.marks_for(unit.project, request.user)
    editable = round1 is None or round1.status != Assignment.Status.DONE
    step = request.GET.get("step") or request.POST.get("view_step") or Step.GRAMMATICALITY
    if pending and pending.get("step") in (Step.GRAMMATICALITY, Step.MEANING):
        step = pending["step"]
    if step != Step.MEANING:
        step = Step.GRAMMATICALITY
    walks = request.session.get(WALKS_KEY, {})
    rows = _cards(unit, request.user, [step], Phase.REEVALUATION, editable=editable, marks=marks, walks=walks)
    if pending:
        for row in rows:
            for card in row.cards:
                if card.item.pk == pending["item"]:
                    card.pending, card.error = pending["answers"], pending.get("error", "")
    context = {
        "project": unit.project,
        "unit": unit,
        "assignment": round1,
        "rows": rows,
        "step": step,
        "original": _original_parts(unit) if step == Step.MEANING else None,
        "n_marked": sum(c.marked for row in rows for c in row.cards),
        "trees": decision_trees.TREES,
    }
    return render(request, "evaluation/unit_reevaluation.html", context, status=status)


@require_GET
def unit_reevaluation(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    """The rater's earlier labels of a finalized unit, the marked ones flagged; any may be changed."""
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)
    assignment = access.rating_assignment(request.user, unit, evaluation.INITIAL_ROUND)
    if assignment.step != Step.FINALIZED or not reevaluation.has_started(unit.project):
        return redirect(unit_page_url(unit, assignment))
    return _reevaluation_page(request, unit)


@require_POST
def unit_reevaluation_finish(request: SignedInRequest, project_pk: int, unit_pk: int) -> HttpResponse:
    unit = access.unit_for_rating(request.user, project_pk, unit_pk)

    def finish(u: EvaluationUnit, user: Any) -> Assignment:
        reevaluation.open_unit_for_revisit(u.project, user, u.pk)
        return evaluation.finish_reevaluation(u, user)

    return _unit_action(
        request, unit, finish, "Re-evaluation of the unit saved.", "annotator:unit-reevaluation"
    )


# ---- the lead's page ------------------------------------------------------------------------------------


def _setup_context(project: Project, **forms: Any) -> dict[str, Any]:
    snapshot = current_figures(project)
    measures = snapshot_measures(snapshot.results) if snapshot else None
    units = list(project.units.prefetch_related("items")[:UNITS_SHOWN])
    size = counts.sizes(project)
    context = {
        "project": project,
        "units": units,
        "n_units": size.units,
        "n_items": size.items,
        "unit_form": forms.get("unit_form") or UnitForm(project=project),
        "assign_form": forms.get("assign_form") or AssignForm(project=project),
        "reevaluation_form": forms.get("reevaluation_form") or ReevaluationForm(),
        "reevaluation_started": reevaluation.has_started(project),
        "initial_complete": reevaluation.initial_phase_complete(project),
        "snapshot": snapshot,
        **lead_summary_context(measures, project_precision(project), rater_progress(project)),
    }
    return context


@require_http_methods(["GET", "POST"])
def evaluation_setup(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead: build units, assign raters, start re-evaluation, see agreement, precision and progress."""
    project = access.project_for_lead(request.user, project_pk)
    if request.method == "GET":
        return render(request, "evaluation/evaluation_setup.html", _setup_context(project))
    action = request.POST.get("action")
    forms: dict[str, type[UnitForm] | type[AssignForm] | type[ReevaluationForm]] = {
        "unit": UnitForm,
        "assign": AssignForm,
        "reevaluation": ReevaluationForm,
    }
    if action not in forms:
        messages.error(request, "Unknown action.")
        return redirect("annotator:evaluation-setup", project.pk)
    form_class = forms[action]
    kwargs = {} if action == "reevaluation" else {"project": project}
    form = form_class(request.POST, **kwargs)
    if form.is_valid():
        try:
            messages.success(request, form.save(project))
            return redirect("annotator:evaluation-setup", project.pk)
        except ValidationError as exc:
            form.add_errors(exc)
    context = _setup_context(project, **{f"{action}_form": form})
    return render(request, "evaluation/evaluation_setup.html", context, status=422)


# ---- Fujita's lexicon evaluation ------------------------------------------------------------------------


LEXICON_JOBS_SHOWN = 5


def _lexicon_job_message(job: CorpusJob) -> str:
    """What the lead is told after starting a build: its outcome when it ran within the request, else
    where to follow it."""
    if job.status in (CorpusJob.Status.QUEUED, CorpusJob.Status.RUNNING):
        what = "preview" if job.options.get("preview") else "build"
        return (
            f"The lexicon {what} runs in the background (job {job.pk}); follow or cancel it under Jobs on "
            "the project's Import / export page."
        )
    return job.report.get("summary", "")


@require_http_methods(["GET", "POST"])
def evaluation_lexicons(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead: build units from a lexicon and a sentence file; precision per lexicon and per union
    (Fujita's Table 4) and against the score threshold (Fig. 3)."""
    project = access.project_for_lead(request.user, project_pk)
    form = LexiconBuildForm()
    status, preview = 200, ""
    if request.method == "POST":
        form = LexiconBuildForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                job = form.start(request.user, project, preview="preview" in request.POST)
            except ValidationError as exc:
                form.add_errors(exc)
            else:
                if job.options.get("preview") and job.status == CorpusJob.Status.SUCCEEDED:
                    preview = job.report["summary"]
                else:
                    messages.success(request, _lexicon_job_message(job))
                    return redirect("annotator:evaluation-lexicons", project.pk)
        status = 200 if preview else 422
    precision = lexicon_precision(project)
    context = {
        "project": project,
        "form": form,
        "precision": precision,
        "charts": threshold_charts(precision["threshold"]["before"], precision["threshold"]["after"]),
        "n_units": counts.n_units(project),
        "lexicon_rows": lexicon_rows(project),
        "lexicon_jobs": CorpusJob.objects.filter(project=project, kind=CorpusJob.Kind.LEXICON)[
            :LEXICON_JOBS_SHOWN
        ],
        "preview": preview,
    }
    return render(request, "evaluation/lexicons.html", context, status=status)
