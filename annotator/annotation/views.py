"""The annotation editor: an annotator's queue and the page where they annotate one pair.

Every save is a POST that names the sheet version the page showed (`base_version`) and answers with
the re-rendered partial of its swap target plus out-of-band partials of what else changed, and the
client event `sheet-saved` carrying the new version (HX-Trigger). A stale version answers 409 with the
`conflict` partial; a broken rule answers 422 with the message partial of the panel where the annotator
acted (HX-Retarget), so the message appears at the spot. Requests without htmx get a redirect back to
the page (with the message), so the forms also work without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget, trigger_client_event

from annotator import access
from annotator.annotation import phenomenon_suggestions, undo
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist as work
from annotator.annotation.forms import (
    CommentForm,
    LabelForm,
    LinkForm,
    PhenomenonForm,
    PhenomenonSuggestionForm,
    PhraseAlignmentForm,
    PhraseSuggestionForm,
    SaveForm,
    SuggestionForm,
    TimeForm,
    error_messages,
)
from annotator.annotation.services import ConflictError
from annotator.annotation.state import EditorState
from annotator.core.counts import KnownCountPaginator
from annotator.core.web_request import SignedInRequest
from annotator.models import Assignment, Pair, Phenomenon, PhraseAlignment
from annotator.projects import guidelines

QUEUE_PAGE_SIZE = 100
PAGE = "annotation/pair_edit.html"
# Message slots inside a swap target come back with it (cleared); the others are cleared out of band.
NESTED = {
    "pair-label": {"label-message"},
    "phrase-alignments": {"phrase-message"},
    "workspace": {"label-message", "undo-message", "phrase-message", "comment-message"},
}
REFRESHABLE = {"workspace", "pair-label", "members", "phenomena", "links", "phrase-alignments", "queue-nav"}
Apply = Callable[[dict[str, Any], int], tuple[int, dict[str, Any]]]


# ---- helpers ---------------------------------------------------------------------------------------


def _edit_url(pair: Pair) -> str:
    return reverse("annotator:pair-edit", args=[pair.project_id, pair.pk])


def _assignment(request: SignedInRequest, pair: Pair) -> Assignment:
    assignment = work.assignment_for(request.user, pair)
    if assignment is None:  # pair_for_annotation already guarantees one; this keeps types honest
        raise PermissionDenied("This pair is not assigned to you.")
    return assignment


def _partials(
    request: SignedInRequest, state: EditorState, target: str, oob: Sequence[str], **extra: Any
) -> str:
    """The target's partial followed by out-of-band partials. Rendered without the request so the
    context processors (a query each) do not run once per partial; the forms get the CSRF token."""
    context = {
        "state": state,
        "pair": state.pair,
        "project": state.project,
        "csrf_token": get_token(request),
        **extra,
    }
    html = [render_to_string(f"{PAGE}#{target}", {**context, "oob": False})]
    html += [render_to_string(f"{PAGE}#{name}", {**context, "oob": True}) for name in oob]
    return "".join(html)


def _retarget(response: HttpResponse, target: str) -> HttpResponse:
    return reswap(retarget(response, f"#{target}"), "outerHTML")


def _invalid(request: SignedInRequest, state: EditorState, slot: str, errors: Any) -> HttpResponse:
    problems = error_messages(errors)
    if not request.htmx:
        for problem in problems:
            messages.error(request, f"{problem['label']}: {problem['message']}".lstrip(": "))
        return redirect(_edit_url(state.pair))
    html = _partials(request, state, slot, (), errors=problems)
    refused = " ".join(f"{p['label']}: {p['message']}".lstrip(": ") for p in problems)
    return trigger_client_event(
        _retarget(HttpResponse(html, status=422), slot), "save-refused", {"message": refused}
    )


def _conflict(request: SignedInRequest, state: EditorState, exc: ConflictError) -> HttpResponse:
    if not request.htmx:
        messages.error(request, str(exc))
        return redirect(_edit_url(state.pair))
    html = _partials(request, state, "conflict", (), conflict=exc)
    return _retarget(HttpResponse(html, status=409), "conflict")


def _save(
    request: SignedInRequest,
    pair: Pair,
    form: SaveForm,
    apply: Apply,
    *,
    target: str,
    slot: str,
    oob: Sequence[str] = (),
    event: str,
) -> HttpResponse:
    """Validate, apply through the services, answer with the changed partials (the common save path)."""
    state = EditorState(pair, request.user)
    if not form.is_valid():
        return _invalid(request, state, slot, form.errors)
    try:
        version, detail = apply(form.cleaned_data, form.cleaned_data["base_version"])
    except ConflictError as exc:
        return _conflict(request, state, exc)
    except ValidationError as exc:
        return _invalid(request, state, slot, exc)
    if not request.htmx:
        return redirect(_edit_url(pair))
    state = EditorState(pair, request.user)
    oob = (*oob, slot) if slot not in NESTED.get(target, ()) else oob
    response = HttpResponse(_partials(request, state, target, oob, saved=True))
    trigger_client_event(response, "sheet-saved", {"version": version})
    return trigger_client_event(response, event, detail)


def _mine(model: Any, pair: Pair, request: SignedInRequest, pk: int) -> Any:
    """One of the annotator's own rows on this pair, or 404 (another's row is not revealed)."""
    obj = model.objects.filter(pk=pk, pair=pair, annotator=request.user, is_gold=False).first()
    if obj is None:
        raise Http404("No such annotation of yours on this pair.")
    return obj


def _go(request: SignedInRequest, url: str) -> HttpResponse:
    """Navigate: a redirect for plain requests, HX-Redirect for the editor's save queue."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _postponed(request: SignedInRequest, project_id: int) -> work.Postponed:
    return work.Postponed(request.session, project_id)


def _next_url(request: SignedInRequest, pair: Pair, assignment: Assignment | None) -> str:
    postponed = _postponed(request, pair.project_id).pair_ids()
    pair_id = work.next_pair_id(request.user, pair.project, assignment, postponed)
    if pair_id is None:
        return reverse("annotator:queue", args=[pair.project_id])
    return reverse("annotator:pair-edit", args=[pair.project_id, pair_id])


# ---- pages -----------------------------------------------------------------------------------------


@require_GET
def queue(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """The annotator's queue: counts, progress and their assigned pairs with their status, a page at a
    time. The counts come from the tallies the database keeps (they also number the pages) and a page
    is read through the queue-order index (`work.queue_page`)."""
    project = access.project_for_member(request.user, project_pk)
    if not access.is_annotator(request.user, project):
        raise PermissionDenied("Only the project's annotators have a queue.")
    postponed = _postponed(request, project.pk).pair_ids()
    counts = work.queue_counts(request.user, project, postponed)
    paginator = KnownCountPaginator(
        work.pair_assignments(request.user, project), QUEUE_PAGE_SIZE, count=counts.total
    )
    page = paginator.get_page(request.GET.get("page"))
    rows = work.queue_page(
        request.user, project, page.start_index() - 1 if counts.total else 0, QUEUE_PAGE_SIZE
    )
    for row in rows:  # shown only, never saved: a postponement lives in the session
        row.status = work.status_in_queue(row.status, row.pair_id, postponed)
    next_id = work.next_pair_id(request.user, project, postponed=postponed)
    context = {
        "project": project,
        "rows": rows,
        "page": page,
        "counts": counts,
        "next_id": next_id,
        "started": work.queue_started(request.user, project, postponed),
    }
    return render(request, "annotation/queue.html", context)


@require_GET
def pair_edit(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """The editor page; for htmx requests naming a target (HX-Target), just that partial."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    assignment = _assignment(request, pair)
    # Opening writes nothing: the pair moves to in progress when the annotator first saves on it. A
    # postponed pair opened again is back in the annotator's hands (session only).
    postponed = _postponed(request, pair.project_id)
    postponed.discard(pair.pk)
    state = EditorState(pair, request.user)
    counts = work.queue_counts(request.user, pair.project, postponed.pair_ids(), current=assignment)
    position, total = counts.position, counts.total
    context = {
        "state": state,
        "pair": pair,
        "project": pair.project,
        "assignment": assignment,
        "position": position,
        "total": total,
        "counts": counts,
    }
    if request.htmx and request.htmx.target in REFRESHABLE:
        return render(request, f"{PAGE}#{request.htmx.target}", context)
    context["guidelines_unseen"] = guidelines.unseen_version(pair.project, request.user)
    return render(request, PAGE, context)


# ---- saves -----------------------------------------------------------------------------------------


@require_POST
def pair_label(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        version = annotation_services.set_pair_label(pair, request.user, data["label"], base_version=base)
        return version, {"label": data["label"]}

    gated = annotation_services.label_gates_phenomena(pair.project)
    # the label may open the phenomena, and it may change their suggestions (a non-paraphrase gate)
    refreshed = (
        ("phenomena", "palette-gate") if gated else ("phenomena",) if pair.project.layer_phenomena else ()
    )
    return _save(
        request,
        pair,
        LabelForm(request.POST),
        apply,
        target="pair-label",
        slot="label-message",
        oob=refreshed,
        event="label-saved",
    )


@require_POST
def pair_comment(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        return annotation_services.set_comment(pair, request.user, data["comment"], base_version=base), {}

    return _save(
        request,
        pair,
        CommentForm(request.POST),
        apply,
        target="comment-status",
        slot="comment-message",
        event="comment-saved",
    )


def _phenomenon_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        name: data[name] for name in ("scope1", "scope2", "key1", "key2", "projection", "sense_preserving")
    }


@require_POST
def phenomenon_create(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        phenomenon, version = annotation_services.add_phenomenon(
            pair,
            request.user,
            data["ptype"],
            comment=data["comment"],
            base_version=base,
            **_phenomenon_fields(data),
        )
        return version, {"id": phenomenon.pk}

    return _save(
        request,
        pair,
        PhenomenonForm(request.POST),
        apply,
        target="phenomena",
        slot="phenomenon-message",
        oob=("members",),
        event="phenomenon-saved",
    )


@require_POST
def phenomenon_update(
    request: SignedInRequest, project_pk: int, pair_pk: int, phenomenon_pk: int
) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    phenomenon = _mine(Phenomenon, pair, request, phenomenon_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        changes = _phenomenon_fields(data)
        if "sense_preserving" not in request.POST:
            del changes["sense_preserving"]
        if "comment" in request.POST:
            changes["comment"] = data["comment"]
        _, version = annotation_services.update_phenomenon(
            phenomenon, base_version=base, ptype=data["ptype"], **changes
        )
        return version, {"id": phenomenon.pk}

    return _save(
        request,
        pair,
        PhenomenonForm(request.POST),
        apply,
        target="phenomena",
        slot="phenomenon-message",
        oob=("members",),
        event="phenomenon-saved",
    )


@require_POST
def phenomenon_delete(
    request: SignedInRequest, project_pk: int, pair_pk: int, phenomenon_pk: int
) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    phenomenon = _mine(Phenomenon, pair, request, phenomenon_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        return annotation_services.delete_phenomenon(phenomenon, base_version=base), {"id": phenomenon_pk}

    return _save(
        request,
        pair,
        SaveForm(request.POST),
        apply,
        target="phenomena",
        slot="phenomenon-message",
        oob=("members",),
        event="phenomenon-deleted",
    )


@require_POST
def phenomenon_suggestion_accept(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Accept the recommender's phenomena suggestions as the annotator's phenomena: the one named by
    `key` (with `corrected`, with the scopes the annotator gave), or all of them."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        if data["key"]:
            phenomenon, version = phenomenon_suggestions.accept(
                pair,
                request.user,
                data["key"],
                projection=data["projection"],
                scopes=(data["scope1"], data["scope2"]) if data["corrected"] else None,
                base_version=base,
            )
            return version, {"ids": [phenomenon.pk]}
        made, version = phenomenon_suggestions.accept_all(
            pair, request.user, projection=data["projection"], base_version=base
        )
        return version, {"ids": [p.pk for p in made]}

    return _save(
        request,
        pair,
        PhenomenonSuggestionForm(request.POST),
        apply,
        target="phenomena",
        slot="phenomenon-message",
        oob=("members",),
        event="phenomenon-saved",
    )


@require_POST
def phenomenon_suggestion_reject(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Reject one of the recommender's phenomena suggestions (named by `key`): the decision is stored and
    the suggestion is not offered to this annotator on this pair again; their sheet does not change."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        if not data["key"]:
            raise ValidationError({"key": "Name the suggestion to reject."})
        phenomenon_suggestions.reject(pair, request.user, data["key"])
        return annotation_services.sheet_version(pair, request.user), {"key": data["key"]}

    return _save(
        request,
        pair,
        PhenomenonSuggestionForm(request.POST),
        apply,
        target="phenomena",
        slot="phenomenon-message",
        event="suggestion-rejected",
    )


@require_POST
def link_add(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Link every selected token of member 1 with every selected token of member 2 (sure or possible)."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = LinkForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        version = annotation_services.set_links(
            pair, request.user, form.block, sure=form.sure, base_version=base
        )
        return version, {"n": len(form.block)}

    return _save(
        request, pair, form, apply, target="links", slot="link-message", oob=("members",), event="links-saved"
    )


@require_POST
def link_remove(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = LinkForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        return annotation_services.remove_links(pair, request.user, form.block, base_version=base), {
            "n": len(form.block)
        }

    return _save(
        request, pair, form, apply, target="links", slot="link-message", oob=("members",), event="links-saved"
    )


@require_POST
def link_toggle(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Switch the selected existing links between sure and possible."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = LinkForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        version, sure = annotation_services.toggle_links(pair, request.user, form.block, base_version=base)
        return version, {"sure": sure}

    return _save(
        request, pair, form, apply, target="links", slot="link-message", oob=("members",), event="links-saved"
    )


@require_POST
def link_accept(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Accept the automatic suggestions as sure links: the one named by i/j, or all of them."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = SuggestionForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        version = work.accept_suggestions(pair, request.user, base_version=base, only=form.only)
        return version, {"all": form.only is None}

    return _save(
        request, pair, form, apply, target="links", slot="link-message", oob=("members",), event="links-saved"
    )


@require_POST
def phrase_alignment_add(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Align a node of tree 1 with a node of tree 2, or one node with no counterpart."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = PhraseAlignmentForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        alignment, version = annotation_services.add_phrase_alignment(
            pair, request.user, data["node1"], data["node2"], sure=form.sure, base_version=base
        )
        return version, {"id": alignment.pk}

    return _save(
        request,
        pair,
        form,
        apply,
        target="phrase-alignments",
        slot="phrase-message",
        event="phrase-alignment-saved",
    )


@require_POST
def phrase_suggestion_accept(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Accept the automatic phrase suggestions as sure phrase alignments: the one named, or all."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = PhraseSuggestionForm(request.POST)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        version = work.accept_phrase_suggestions(pair, request.user, base_version=base, only=form.only)
        return version, {"all": form.only is None}

    return _save(
        request,
        pair,
        form,
        apply,
        target="phrase-alignments",
        slot="phrase-message",
        event="phrase-alignment-saved",
    )


@require_POST
def phrase_alignment_remove(
    request: SignedInRequest, project_pk: int, pair_pk: int, alignment_pk: int
) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    alignment = _mine(PhraseAlignment, pair, request, alignment_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        return annotation_services.remove_phrase_alignment(alignment, base_version=base), {"id": alignment_pk}

    return _save(
        request,
        pair,
        SaveForm(request.POST),
        apply,
        target="phrase-alignments",
        slot="phrase-message",
        event="phrase-alignment-deleted",
    )


@require_POST
def pair_undo(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Undo the annotator's last save on this pair (again and again, stepping back)."""
    return _history_step(request, project_pk, pair_pk, undo.undo_last, "sheet-undone")


@require_POST
def pair_redo(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Redo the change the annotator's last undo took back (until a new save is made)."""
    return _history_step(request, project_pk, pair_pk, undo.redo_last, "sheet-redone")


def _history_step(
    request: SignedInRequest, project_pk: int, pair_pk: int, step: Callable[..., Any], event: str
) -> HttpResponse:
    """An undo or a redo: `step` moves the sheet through its history; the workspace answers."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)

    def apply(data: dict[str, Any], base: int) -> tuple[int, dict[str, Any]]:
        done = step(pair, request.user, base_version=base)
        return done.version, {"description": done.description}

    return _save(
        request, pair, SaveForm(request.POST), apply, target="workspace", slot="undo-message", event=event
    )


# ---- moving through the queue ----------------------------------------------------------------------


@require_GET
def pair_next(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    return redirect(_next_url(request, pair, _assignment(request, pair)))


@require_GET
def pair_previous(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    pair_id = work.previous_pair_id(request.user, pair.project, _assignment(request, pair))
    if pair_id is None:
        messages.info(request, "This is the first pair of your queue.")
        return redirect(_edit_url(pair))
    return redirect(reverse("annotator:pair-edit", args=[project_pk, pair_id]))


@require_POST
def pair_postpone(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Put the pair aside: it comes back after the open pairs of the queue (kept in the session only)."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    assignment = _assignment(request, pair)
    _postponed(request, pair.project_id).add(pair.pk)
    return _go(request, _next_url(request, pair, assignment))


@require_POST
def pair_done(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Mark the pair done if the completeness checks pass; otherwise say what is missing."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    assignment = _assignment(request, pair)
    with transaction.atomic():
        problems = work.mark_done(assignment, pair, request.user)
    if not problems:
        return _go(request, _next_url(request, pair, assignment))
    state = EditorState(pair, request.user)
    return _invalid(request, state, "done-message", {"__all__": problems})


@require_POST
def pair_time(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Add the active seconds the page measured to the assignment's time spent (sent on leaving)."""
    pair = access.pair_for_annotation(request.user, project_pk, pair_pk)
    form = TimeForm(request.POST)
    if not form.is_valid():
        return HttpResponse(status=400)
    work.add_time_spent(_assignment(request, pair), form.cleaned_data["seconds"])
    return HttpResponse(status=204)
