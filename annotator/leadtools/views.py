"""The lead's tools: assignment planner, disagreement explorer, re-annotation queue, adjudication.

Leads of the project and admins only: every view starts with `access.project_for_lead` or
`access.pair_for_lead` (annotators 403, outsiders 404). Pages serve their htmx regions as named
partials (`template.html#<dom id>`); the logic lives in `annotator.leadtools.planning`,
`.disagreement`, `.reannotation` and `.adjudication`.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from annotator import access, taskqueue
from annotator.annotation.services import ConflictError
from annotator.core import counts
from annotator.core.web_request import SignedInRequest
from annotator.leadtools import adjudication, disagreement, explorer_rows, planning, reannotation
from annotator.leadtools import forms as f
from annotator.models import AssignmentPlan, ExplorerState, Pair, ParaphraseType, Project, ReannotationRound
from annotator.projects import members

# ---- planner --------------------------------------------------------------------------------------


def _plan_defaults(project: Project, annotators: list[tuple[int, str]]) -> dict[str, Any]:
    """The form's first choices. The seed is the one of the project's latest plan not yet applied, so
    opening the page again shows the stored plan of these choices instead of computing a new one."""
    latest = (
        AssignmentPlan.objects.filter(project=project, applied_at=None)
        .exclude(status=AssignmentPlan.Status.FAILED)
        .order_by("-pk")
        .values_list("params", flat=True)
        .first()
    )
    seed = latest.get("seed") if isinstance(latest, dict) else None
    return {
        "selection": "all",
        "seed": seed if isinstance(seed, int) else f.new_seed(),
        "annotators": [user_id for user_id, _ in annotators],
        "per_pair": "everyone",
        "k": 2,
        "phase": project.phase,
    }


@require_http_methods(["GET", "POST"])
def planner(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Choose pairs, annotators and annotators per pair; preview the stored plan's load and one page of
    its assignments (htmx, polling while it is computed); assign exactly that plan (POST)."""
    project = access.project_for_lead(request.user, project_pk)
    annotators = planning.project_annotators(project)
    stored = _stored_plan(request, project)
    data = request.POST if request.method == "POST" else _planner_query(request, stored)
    form = f.PlanForm(data or _as_form_data(_plan_defaults(project, annotators)), annotators=annotators)
    plan = None
    if request.method == "GET" and stored is not None and "selection" not in request.GET:
        plan = stored  # a page of a stored plan, or polling it while it is computed
    elif form.is_valid():
        try:
            plan = planning.request_plan(project, request.user, **form.plan_kwargs())
        except ValidationError as error:
            f.add_service_errors(form, error)
    result = None
    needs_confirmation = False
    if request.method == "POST" and plan is not None:
        # Assign writes the plan the preview showed: the POST names it, and it must be the plan of the
        # posted options; any other plan (the options changed, the preview never loaded) is shown first.
        if stored is None or stored.pk != plan.pk or not plan.finished:
            needs_confirmation = True
        else:
            try:
                created = planning.apply_stored_plan(plan)
            except ValidationError as error:
                f.add_service_errors(form, error)
                needs_confirmation = True
            else:
                loads = [(load["username"], load["new"]) for load in plan.loads if load["new"]]
                result = {"created": created, "kept": plan.n_assignments - created, "loads": loads}
    context = {
        "project": project,
        "form": form,
        "plan": plan,
        "result": result,
        "needs_confirmation": needs_confirmation,
        **_plan_view(request, plan, dict(annotators)),
    }
    if request.htmx and request.method == "GET":
        return render(request, "leadtools/planner.html#plan-preview", context)
    context |= {
        "summary": planning.assignment_summary(project),
        "reassign_form": f.ReassignForm(annotators=annotators),
        "n_pairs": counts.n_pairs(project),
    }
    failed = plan is not None and plan.status == plan.Status.FAILED
    status = 422 if needs_confirmation or failed or not (plan or not data) else 200
    return render(request, "leadtools/planner.html", context, status=status)


def _stored_plan(request: SignedInRequest, project: Project) -> AssignmentPlan | None:
    """The stored plan the request names (`plan`), if it is one of the project's."""
    value = (request.POST if request.method == "POST" else request.GET).get("plan", "")
    if not value.isdigit():
        return None
    return AssignmentPlan.objects.filter(project=project, pk=int(value)).first()


def _planner_query(request: SignedInRequest, stored: AssignmentPlan | None) -> Any:
    """The options of a GET: the form's own fields, or those of the stored plan it names."""
    if "selection" in request.GET:
        return request.GET
    if stored is not None:
        return _as_form_data({key: value for key, value in stored.params.items() if value is not None})
    return None


def _plan_view(
    request: SignedInRequest, plan: AssignmentPlan | None, names: dict[int, str]
) -> dict[str, Any]:
    """What the preview shows besides the totals: bar scale, overlap per two annotators, one page of
    the planned assignments (`page`) and the pages around it."""
    if plan is None:
        return {}
    pages = planning.plan_pages(plan)
    page = request.GET.get("page", "")
    number = min(int(page), pages) if page.isdigit() and int(page) > 0 else 1
    planned = planning.planned_page(plan, number) if plan.status == plan.Status.READY else []
    first = (number - 1) * planning.PLAN_PAGE_SIZE + 1
    return {
        "plan_max": max([load["total"] for load in plan.loads] + [1]),
        "overlap": [(names.get(a, a), names.get(b, b), n) for a, b, n in plan.overlap],
        "phase_label": Project.Phase(plan.params["phase"]).label,
        "planned": planned,
        "plan_page": number,
        "plan_pages": pages,
        "plan_first": first,
        "plan_last": first + len(planned) - 1,
    }


def _as_form_data(values: dict[str, Any]) -> Any:

    data = QueryDict(mutable=True)
    for key, value in values.items():
        data.setlist(key, [str(v) for v in value] if isinstance(value, list) else [str(value)])
    return data


@require_POST
def planner_reassign(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Move the unfinished work of an annotator who left to another annotator."""
    project = access.project_for_lead(request.user, project_pk)
    annotators = planning.project_annotators(project)
    form = f.ReassignForm(request.POST, annotators=annotators)
    if form.is_valid():
        users = _users([form.cleaned_data["from_user"], form.cleaned_data["to_user"]])
        try:
            result = members.reassign(
                project,
                users[form.cleaned_data["from_user"]],
                users[form.cleaned_data["to_user"]],
                remove_member=form.cleaned_data["remove_member"],
            )
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            names = dict(annotators)
            messages.success(
                request,
                f"Moved {result.moved} unfinished pair{'s' if result.moved != 1 else ''} from "
                f"{names[form.cleaned_data['from_user']]} to {names[form.cleaned_data['to_user']]}"
                + (f"; {result.already_held} they already had were dropped" if result.already_held else "")
                + (
                    f"; {names[form.cleaned_data['from_user']]} left the project"
                    if result.removed_from_project
                    else ""
                )
                + ".",
            )
            return redirect("annotator:planner", project_pk=project.pk)
    for field, errors in form.errors.items():
        for message in errors:
            messages.error(
                request,
                f"Reassign — {form.fields[field].label if field in form.fields else 'form'}: {message}",
            )
    return redirect("annotator:planner", project_pk=project.pk)


def _users(ids: list[int]) -> dict[int, Any]:

    return {user.pk: user for user in get_user_model().objects.filter(pk__in=ids)}


# ---- disagreement explorer ------------------------------------------------------------------------

PAGE_SIZE = 50


def _explorer_filters(
    request: SignedInRequest, state: ExplorerState | None, measure_default: str
) -> dict[str, Any]:
    measure = request.GET.get("measure") or measure_default
    if measure not in disagreement.MEASURES:
        measure = measure_default
    pairs = state.annotator_pairs if state is not None else []
    annotator_pair = request.GET.get("annotators", "")
    types = state.types if state is not None else []
    ptype = request.GET.get("type", "")
    return {
        "measure": measure,
        "annotator_pair": annotator_pair if annotator_pair in pairs else "",
        "ptype": ptype if ptype in types else "",
        "annotator_pairs": pairs,
        "types": types,
    }


@require_GET
def explorer(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Pairs ordered by agreement, lowest first; filter by measure, type and annotator pair.

    One page of stored rows (`explorer_rows`), read in the database: the cost does not grow with the
    project."""
    project = access.project_for_lead(request.user, project_pk)
    state = explorer_rows.stored_state(project)
    filters = _explorer_filters(request, state, disagreement.default_measure(project))
    ordered = explorer_rows.Ordered(
        project, state, filters["measure"], filters["annotator_pair"], filters["ptype"]
    )
    page: Any = Paginator(ordered, PAGE_SIZE).get_page(request.GET.get("page"))  # type: ignore[arg-type]
    items = [
        {
            "pair": item.pair,
            "value": item.value,
            "row": item.row,
            "per": _per_annotator_pair(item.row, filters),
        }
        for item in page
    ]
    context = {
        "project": project,
        "items": items,
        "page": page,
        "filters": filters,
        "measures": disagreement.MEASURES,
        "n_compared": ordered.n_compared(),
        "recomputing": not explorer_rows.is_current(state),
        "paused": explorer_rows.is_paused(project) and not explorer_rows.is_current(state),
        "query": _query_without_page(request),
    }
    if request.htmx and request.htmx.target == "explorer-results":
        return render(request, "leadtools/explorer.html#explorer-results", context)
    return render(request, "leadtools/explorer.html", context)


@require_http_methods(["POST"])
def explorer_refresh(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Stop the explorer's refresh (`cancel`: the values stay the previous ones), or ask for it again."""
    project = access.project_for_lead(request.user, project_pk)
    if "cancel" in request.POST:
        explorer_rows.cancel_refresh(project)
    else:
        explorer_rows.resume_refresh(project)
    return redirect("annotator:explorer", project_pk=project.pk)


def _per_annotator_pair(row: dict[str, Any], filters: dict[str, Any]) -> list[tuple[str, float | None]]:
    return disagreement.per_annotator_pair(
        row, filters["measure"], annotator_pair=filters["annotator_pair"], ptype=filters["ptype"]
    )


def _query_without_page(request: SignedInRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@require_GET
def explorer_pair(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Two annotators' versions of a pair side by side, differences highlighted."""
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    project = pair.project
    explorer_rows.stored_state(project)
    row = explorer_rows.pair_row(project, pair)
    names = dict(planning.project_annotators(project))
    ids_by_name = {name: user_id for user_id, name in names.items()}
    workers = [name for name in row["annotators"] if name in ids_by_name]
    a, b = disagreement.choose_annotators(row, workers, request.GET.get("a", ""), request.GET.get("b", ""))
    context: dict[str, Any] = {
        "project": project,
        "pair": pair,
        "row": row,
        "workers": workers,
        "a": a,
        "b": b,
    }
    if a and b:
        (va, vb), _ = adjudication.versions(pair, [ids_by_name[a], ids_by_name[b]])
        context |= {
            "va": va,
            "vb": vb,
            "key": disagreement.comparison_key(row, a, b),
            "phenomena": disagreement.compare_phenomena(pair, va.phenomena, vb.phenomena),
            "links": disagreement.compare_links(pair, va.links, vb.links),
            "phrases": disagreement.compare_phrases(pair, va.phrases, vb.phrases),
        }
    if request.htmx and request.htmx.target == "comparison":
        return render(request, "leadtools/explorer_pair.html#comparison", context)
    return render(request, "leadtools/explorer_pair.html", context)


# ---- re-annotation queue --------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def reannotation_view(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Pick a rule, preview the draw, queue it (Celery task); earlier rounds with before and after."""
    project = access.project_for_lead(request.user, project_pk)
    rule, seed = ReannotationRound.Rule.LABEL_DISAGREEMENT, f.new_seed()
    form = f.ReannotationForm(_reannotation_data(request), initial={"rule": rule, "seed": seed})
    # An unbound page previews its initial choice, so the preview always matches the form.
    preview = None if form.is_bound else reannotation.preview_draw(project, rule, {}, seed=seed)
    if form.is_bound and form.is_valid():
        try:
            preview = reannotation.preview_draw(
                project, form.cleaned_data["rule"], form.params(), seed=form.cleaned_data["seed"]
            )
        except ValidationError as error:
            f.add_service_errors(form, error)
    if request.method == "POST" and preview is not None:
        try:
            taskqueue.enqueue(
                "annotator.queue_reannotation",
                project.pk,
                form.cleaned_data["rule"],
                form.params(),
                form.cleaned_data["seed"],
                request.user.pk,
            )
        except taskqueue.QueueUnavailable as exc:  # nothing was queued; say so
            messages.error(request, str(exc))
            return redirect(reverse("annotator:reannotation", args=[project.pk]))
        messages.success(
            request,
            f"Queued {preview.count()} pair{pluralize(preview.count())} for re-annotation "
            f"({preview.n_flagged} flagged, {preview.n_sampled} agreeing mixed in).",
        )
        return redirect(
            reverse("annotator:reannotation", args=[project.pk]) + f"?waiting={form.cleaned_data['seed']}"
        )
    context = {
        "project": project,
        "form": form,
        "preview": preview,
        **_preview_page(request, form, preview),
    }
    if request.htmx and request.htmx.target == "reannotation-preview":
        return render(request, "leadtools/reannotation.html#reannotation-preview", context)
    context |= _rounds_context(request, project)
    if request.htmx and request.htmx.target == "reannotation-rounds":
        return render(request, "leadtools/reannotation.html#reannotation-rounds", context)
    return render(
        request,
        "leadtools/reannotation.html",
        context,
        status=422 if form.is_bound and preview is None else 200,
    )


REANNOTATION_PAGE_SIZE = 100  # pairs of the previewed queue shown at a time


def _preview_page(
    request: SignedInRequest, form: f.ReannotationForm, preview: reannotation.DrawPreview | None
) -> dict[str, Any]:
    """A page of the previewed queue and the query that pages it with the same rule and seed."""
    if preview is None:
        return {}
    paginator: Any = Paginator(preview, REANNOTATION_PAGE_SIZE)  # type: ignore[arg-type]
    page: Any = paginator.get_page(request.GET.get("page"))
    if form.is_bound:
        query: QueryDict = form.data.copy()  # type: ignore[attr-defined]
        for name in ("page", "csrfmiddlewaretoken", "pick"):
            query.pop(name, None)
    else:
        query = QueryDict(mutable=True)
        query.update({"rule": preview.rule, "seed": str(preview.seed)})
    return {"preview_page": page, "preview_pairs": list(page.object_list), "preview_query": query.urlencode()}


def _reannotation_data(request: SignedInRequest) -> Any:
    """POST, or a GET that names a rule (the htmx preview, or pairs ticked in the explorer: `pick`)."""
    if request.method == "POST":
        return request.POST
    if "rule" not in request.GET:
        return None
    data = request.GET.copy()
    if data.getlist("pick"):
        data["pairs"] = " ".join(data.getlist("pick"))
    if not data.get("seed"):
        data["seed"] = str(f.new_seed())
    return data


def _rounds_context(request: SignedInRequest, project: Project) -> dict[str, Any]:
    rounds = list(
        ReannotationRound.objects.filter(project=project).select_related("before_snapshot", "created_by")
    )
    compared = reannotation.stored_before_after(project, rounds)
    waiting = request.GET.get("waiting", "")
    still_waiting = bool(waiting) and not any(str(r.seed) == waiting for r in rounds)
    return {
        "rounds": [{"round": r, "compare": compared[r.pk]} for r in rounds],
        "waiting": waiting if still_waiting else "",
    }


# ---- adjudication ---------------------------------------------------------------------------------


def _adjudication_context(pair: Pair, **extra: Any) -> dict[str, Any]:
    project = pair.project
    version_list, gold = adjudication.pair_versions(pair)
    gold_keys = {
        "phenomena": {adjudication.phenomenon_key(x) for x in gold.phenomena},
        "links": {adjudication.link_key(x) for x in gold.links},
        "phrases": {adjudication.phrase_key(x) for x in gold.phrases},
    }
    types = _type_choices(project)
    return {
        "project": project,
        "pair": pair,
        "versions": version_list,
        "gold": gold,
        "gold_keys": gold_keys,
        "in_gold": _in_gold(version_list, gold),
        "phenomenon_form": extra.pop("phenomenon_form", None) or f.GoldPhenomenonForm(types=types),
        "link_form": extra.pop("link_form", None) or f.GoldLinkForm(),
        "tokens1": list(enumerate(pair.tokens1)),
        "tokens2": list(enumerate(pair.tokens2)),
        **extra,
    }


def _type_choices(project: Project) -> list[tuple[int, str]]:
    """The types of the project's tagset as (pk, name) choices; none without a tagset."""
    if project.tagset_id is None:
        return []
    return list(ParaphraseType.objects.filter(tagset_id=project.tagset_id).values_list("pk", "name"))


def _in_gold(version_list: list[adjudication.Version], gold: adjudication.Version) -> set[str]:
    """Ids ("p12", "l7", "a3") of annotators' rows gold already has, to mark them in the page."""
    found = adjudication.rows_in_gold(version_list, gold)
    prefixes = {"phenomena": "p", "links": "l", "phrases": "a"}
    return {f"{prefixes[kind]}{pk}" for kind, ids in found.items() for pk in ids}


@require_GET
def adjudicate(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """The annotators' versions next to the gold layer the lead builds from them."""
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    context = _adjudication_context(pair)
    if request.htmx and request.htmx.target == "adjudication":
        return render(request, "leadtools/adjudicate.html#adjudication", context)
    return render(request, "leadtools/adjudicate.html", context)


def _base_version(request: SignedInRequest) -> int | None:
    raw = request.POST.get("base_version", "")
    return int(raw) if raw.isdigit() else None


def _after_change(request: SignedInRequest, pair: Pair, action: Any, **extra: Any) -> HttpResponse:
    """Run a gold change; answer the re-rendered #adjudication (htmx) or redirect back to the page."""
    status = 200
    try:
        action()
    except ConflictError as error:
        extra["problem"], status = str(error), 409
    except ValidationError as error:
        extra["problem"], status = "; ".join(_messages(error)), 422
    if not request.htmx:
        if "problem" in extra:
            messages.error(request, extra["problem"])
        return redirect("annotator:adjudicate", project_pk=pair.project_id, pair_pk=pair.pk)
    response = render(
        request, "leadtools/adjudicate.html#adjudication", _adjudication_context(pair, **extra), status=status
    )
    if status == 200:
        trigger_client_event(response, "gold-saved")
    return response


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{field}: {message}" for field, msgs in error.message_dict.items() for message in msgs]
    return list(error.messages)


def _member(pair: Pair, user_id: str) -> Any:
    return adjudication.project_annotator(pair, int(user_id) if user_id.isdigit() else None)


@require_POST
def adjudicate_take(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)

    def action() -> None:
        source = _member(pair, request.POST.get("source", ""))
        adjudication.take_version(pair, source, request.user, base_version=_base_version(request))

    return _after_change(request, pair, action)


@require_POST
def adjudicate_merge(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)

    def action() -> None:
        label_from = request.POST.get("label_from", "")
        adjudication.merge_into_gold(
            pair,
            request.user,
            phenomenon_ids=_ids(request, "phenomena"),
            link_ids=_ids(request, "links"),
            phrase_ids=_ids(request, "phrases"),
            label_from=_member(pair, label_from) if label_from else None,
            base_version=_base_version(request),
        )

    return _after_change(request, pair, action)


def _ids(request: SignedInRequest, name: str) -> list[int]:
    values = request.POST.getlist(name)
    bad = [v for v in values if not v.isdigit()]
    if bad:
        raise ValidationError({name: f"{bad[0]!r} is not a row id."})
    return [int(v) for v in values]


@require_POST
def adjudicate_label(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    return _after_change(
        request,
        pair,
        lambda: adjudication.set_gold_label(
            pair, request.user, request.POST.get("label", ""), base_version=_base_version(request)
        ),
    )


@require_POST
def adjudicate_phenomenon_add(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    types = _type_choices(pair.project)
    form = f.GoldPhenomenonForm(request.POST, types=types)

    def action() -> None:
        if not form.is_valid():
            raise ValidationError({name: list(errors) for name, errors in form.errors.items()})
        data = dict(form.cleaned_data)
        adjudication.add_gold_phenomenon(
            pair, request.user, data.pop("ptype"), base_version=_base_version(request), **data
        )

    return _after_change(request, pair, action, phenomenon_form=form if not form.is_valid() else None)


@require_POST
def adjudicate_phenomenon_update(
    request: SignedInRequest, project_pk: int, pair_pk: int, phenomenon_pk: int
) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    types = _type_choices(pair.project)
    form = f.GoldPhenomenonForm(request.POST, types=types)

    def action() -> None:
        if not form.is_valid():
            raise ValidationError({name: list(errors) for name, errors in form.errors.items()})
        data = dict(form.cleaned_data)
        adjudication.update_gold_phenomenon(
            pair, request.user, phenomenon_pk, base_version=_base_version(request), **data
        )

    return _after_change(request, pair, action)


@require_POST
def adjudicate_phenomenon_remove(
    request: SignedInRequest, project_pk: int, pair_pk: int, phenomenon_pk: int
) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    return _after_change(
        request,
        pair,
        lambda: adjudication.remove_gold_phenomenon(
            pair, request.user, phenomenon_pk, base_version=_base_version(request)
        ),
    )


@require_POST
def adjudicate_link_set(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    form = f.GoldLinkForm(request.POST)

    def action() -> None:
        if not form.is_valid():
            raise ValidationError({name: list(errors) for name, errors in form.errors.items()})
        data = form.cleaned_data
        adjudication.set_gold_link(
            pair, request.user, data["i"], data["j"], sure=data["sure"], base_version=_base_version(request)
        )

    return _after_change(request, pair, action, link_form=form if not form.is_valid() else None)


@require_POST
def adjudicate_link_remove(
    request: SignedInRequest, project_pk: int, pair_pk: int, link_pk: int
) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    return _after_change(
        request,
        pair,
        lambda: adjudication.remove_gold_link(
            pair, request.user, link_pk, base_version=_base_version(request)
        ),
    )


@require_POST
def adjudicate_phrase_remove(
    request: SignedInRequest, project_pk: int, pair_pk: int, alignment_pk: int
) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    return _after_change(
        request,
        pair,
        lambda: adjudication.remove_gold_phrase(
            pair, request.user, alignment_pk, base_version=_base_version(request)
        ),
    )
