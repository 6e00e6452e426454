"""The lead's tools in the REST API: assignment planner, disagreement explorer, re-annotation, adjudication.

The same checks and functions as the HTML views of `annotator.leadtools.views`: every view starts with
`access.project_for_lead` or `access.pair_for_lead` (outsiders 404, other members 403), the planner's
input goes through the page's own forms, and every change is a call of `annotator.leadtools.planning`,
`.reannotation` or `.adjudication`. Errors map as in `annotator.api.common` (`ServiceErrors`): a service's
ValidationError → 400 `{field: [message]}`, a stale `base_version` of the gold sheet → 409
`{detail, current_version}`.

URLs (router basenames `api-planner`, `api-explorer`, `api-reannotation`, `api-adjudication`,
`api-gold-phenomenon`, `api-gold-link`, `api-gold-phrasealignment`) are under
`/api/projects/{project_pk}/`; see `annotator.api.urls`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.http import Http404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from annotator import access, taskqueue
from annotator.api import leadtools_serializers as ls
from annotator.api import serializers as s
from annotator.api.common import (
    BASE_VERSION_PARAM,
    CONFLICT,
    Page,
    ServiceErrors,
    form_errors,
    int_query,
    validated,
)
from annotator.core import counts
from annotator.leadtools import adjudication, disagreement, explorer_rows, forms, planning, reannotation
from annotator.models import AssignmentPlan, Pair, Project, ReannotationRound
from annotator.projects import members

INVALID = {400: OpenApiResponse(description="Invalid input: {field: [message]}.")}
GOLD_ERRORS = {**INVALID, 409: CONFLICT}
PROJECT_PK = OpenApiParameter(
    "project_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="Project id."
)
PAIR_PK = OpenApiParameter("pair_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="Pair id.")


def _path_id(value: Any) -> int:
    """A whole-number URL segment as an id; beyond any id's range it names nothing (404)."""
    number = int(value)
    if number > 2**63 - 1:
        raise Http404("No such object.")
    return number


class LeadTool(ServiceErrors, viewsets.GenericViewSet):
    """Leads of the project and admins (`access.project_for_lead` / `access.pair_for_lead`)."""

    pagination_class: type[BasePagination] | None = None

    def project(self) -> Project:
        return access.project_for_lead(self.request.user, _path_id(self.kwargs["project_pk"]))

    def pair(self) -> Pair:
        return access.pair_for_lead(
            self.request.user, _path_id(self.kwargs["project_pk"]), _path_id(self.kwargs["pair_pk"])
        )


# ---- planner --------------------------------------------------------------------------------------


@extend_schema(parameters=[PROJECT_PK])
class PlannerViewSet(LeadTool):
    """The assignment planner: current load, a plan (previewed or applied), reassigning unfinished work."""

    @extend_schema(
        summary="The planner's inputs: annotators, pairs, phase and the assignment summary (leads only)",
        responses=ls.PlannerSerializer,
    )
    def list(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        annotators = planning.project_annotators(project)
        return Response(
            {
                "project": project.pk,
                "phase": project.phase,
                "n_pairs": counts.n_pairs(project),
                "annotators": [{"id": pk, "username": name} for pk, name in annotators],
                "summary": planning.assignment_summary(project),
                "selections": list(planning.SELECTIONS),
                "per_pair_choices": list(planning.PER_PAIR),
                "phases": list(Project.Phase.values),
            }
        )

    @extend_schema(
        summary="Plan assignments; with dry_run the plan comes back unwritten (leads only)",
        description="The planner form's parameters: which pairs (`selection` all / sample of `n` with "
        "`seed` / filter by corpus label, source id prefix, unannotated, unassigned), which annotators, "
        "how many per pair (`everyone`, `one`, `k`), the phase. The plan is computed once by a background "
        "task and stored: the same parameters on unchanged pairs and annotators give the same plan (`id`). "
        "The answer carries its loads, totals and its first 100 planned assignments; 202 while a worker "
        "still computes it (post again). Applying writes exactly the stored plan and is idempotent: "
        "assignments that exist are kept and not counted in `created`.",
        request=ls.PlanRequestSerializer,
        responses={
            200: ls.PlanResultSerializer,
            201: ls.PlanResultSerializer,
            202: ls.PlanResultSerializer,
            **INVALID,
        },
    )
    @action(detail=False, methods=["post"])
    def plan(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = ls.PlanRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = {key: value for key, value in data.validated_data.items() if value is not None}
        dry_run = values.pop("dry_run")
        annotators = planning.project_annotators(project)
        values.setdefault("annotators", [pk for pk, _ in annotators])
        values.setdefault("seed", forms.new_seed())
        values.setdefault("phase", project.phase)
        form = forms.PlanForm(values, annotators=annotators)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        stored = planning.request_plan(project, request.user, **form.plan_kwargs())
        if stored.status == stored.Status.FAILED:
            raise ValidationError({"plan": [stored.error]})
        if not stored.finished:  # a worker is computing it: ask again
            body = {"dry_run": dry_run, "created": None, "plan": _plan(stored)}
            return Response(body, status=status.HTTP_202_ACCEPTED)
        created = None if dry_run else planning.apply_stored_plan(stored)
        body = {"dry_run": dry_run, "created": created, "plan": _plan(stored)}
        return Response(body, status=status.HTTP_200_OK if dry_run else status.HTTP_201_CREATED)

    @extend_schema(
        summary="Move an annotator's unfinished pairs to another annotator (leads only)",
        request=ls.ReassignRequestSerializer,
        responses={200: ls.ReassignResultSerializer, **INVALID},
    )
    @action(detail=False, methods=["post"])
    def reassign(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = ls.ReassignRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        form = forms.ReassignForm(data.validated_data, annotators=planning.project_annotators(project))
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        ids = [form.cleaned_data["from_user"], form.cleaned_data["to_user"]]
        users = get_user_model().objects.in_bulk(ids)
        result = members.reassign(
            project, users[ids[0]], users[ids[1]], remove_member=form.cleaned_data["remove_member"]
        )
        return Response(
            {
                "moved": result.moved,
                "already_held": result.already_held,
                "removed_from_project": result.removed_from_project,
            }
        )


def _plan(plan: AssignmentPlan) -> dict[str, Any]:
    choices = plan.params
    return {
        "id": plan.pk,
        "status": plan.status,
        "project": plan.project_id,
        "phase": choices["phase"],
        "round": choices["round"],
        "per_pair": choices["per_pair"],
        "k": choices["k"],
        "seed": choices["seed"],
        "annotators": list(choices["annotators"]),
        "n_pairs": plan.n_pairs,
        "n_assignments": plan.n_assignments,
        "n_new": plan.n_new,
        "assignments": [
            [row["annotator_id"], row["pair_id"]]
            for row in (planning.planned_page(plan, 1) if plan.status == plan.Status.READY else [])
        ],
        "loads": list(plan.loads),
        "overlap": [{"a": a, "b": b, "shared": n} for a, b, n in plan.overlap],
    }


# ---- disagreement explorer ------------------------------------------------------------------------


def _query_param(name: str, description: str, enum: list[str] | None = None) -> OpenApiParameter:
    return OpenApiParameter(
        name, OpenApiTypes.STR, OpenApiParameter.QUERY, description=description, enum=enum
    )


@extend_schema(parameters=[PROJECT_PK])
class ExplorerViewSet(LeadTool):
    """The disagreement explorer: pairs ordered by agreement; one pair's two versions side by side."""

    lookup_url_kwarg = "pair_pk"
    pagination_class = Page

    @extend_schema(
        summary="Pairs ordered by agreement, lowest first (leads only)",
        parameters=[
            _query_param(
                "measure",
                "Ordered by; default: phenomena if the project has them, else alignment, else labels.",
                enum=list(disagreement.MEASURES),
            ),
            _query_param(
                "annotators", 'Only the pairs both of "a|b" (usernames) worked on, by their values.'
            ),
            _query_param("type", "Only pairs where someone annotated this paraphrase type (DO F1 by it)."),
        ],
        responses={200: ls.ExplorerPageSerializer, **INVALID},
    )
    def list(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        measure = request.query_params.get("measure") or disagreement.default_measure(project)
        if measure not in disagreement.MEASURES:
            raise ValidationError({"measure": [f"Choose one of {', '.join(disagreement.MEASURES)}."]})
        annotator_pair = request.query_params.get("annotators", "")
        if annotator_pair and not _is_annotator_pair(annotator_pair):
            raise ValidationError({"annotators": ['Name two different annotators as "a|b".']})
        ptype = request.query_params.get("type", "")
        state = explorer_rows.stored_state(project)
        ordered = explorer_rows.Ordered(project, state, measure, annotator_pair, ptype)
        page: list[explorer_rows.Item] = self.paginate_queryset(ordered) or []  # type: ignore[arg-type]
        results = [
            {
                **item.row,
                "pair": item.pair.pk,
                "source_id": item.pair.source_id,
                "value": item.value,
                "per_annotator_pair": [
                    {"annotators": key, "value": v}
                    for key, v in disagreement.per_annotator_pair(
                        item.row, measure, annotator_pair=annotator_pair, ptype=ptype
                    )
                ],
            }
            for item in page
        ]
        paginator = self.paginator
        assert paginator is not None and isinstance(paginator, Page)
        body = {
            "count": ordered.count(),
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "measure": measure,
            "annotator_pair": annotator_pair,
            "type": ptype,
            "annotator_pairs": state.annotator_pairs if state is not None else [],
            "types": state.types if state is not None else [],
            "n_compared": ordered.n_compared(),
            "current": explorer_rows.is_current(state),
            "paused": explorer_rows.is_paused(project) and not explorer_rows.is_current(state),
            "results": results,
        }
        return Response(ls.ExplorerPageSerializer(body).data)

    @extend_schema(
        summary="Stop the explorer's refresh (leads only)",
        description="A running refresh stops before its next batch of 5,000 pairs and is rolled back: the "
        "values stay those of the previous refresh. None is asked for until POST refresh/ (or an hour).",
        request=None,
        responses={200: ls.ExplorerRefreshSerializer, **INVALID},
    )
    @action(detail=False, methods=["post"])
    def cancel(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        running = explorer_rows.cancel_refresh(project)
        body = {"running": running, "current": explorer_rows.rows_current(project), "paused": True}
        return Response(ls.ExplorerRefreshSerializer(body).data)

    @extend_schema(
        summary="Refresh the explorer again after a cancel (leads only)",
        request=None,
        responses={200: ls.ExplorerRefreshSerializer, **INVALID},
    )
    @action(detail=False, methods=["post"])
    def refresh(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        state = explorer_rows.resume_refresh(project)
        body = {"running": False, "current": explorer_rows.is_current(state), "paused": False}
        return Response(ls.ExplorerRefreshSerializer(body).data)

    @extend_schema(
        summary="Two annotators' versions of a pair compared (leads only)",
        description="Default: the two who agree least on the pair. Phenomena by type with how the "
        "other side matches each, the links only one of them has, the phrase alignments of each.",
        parameters=[
            PAIR_PK,
            _query_param("a", "An annotator (username) who worked on the pair."),
            _query_param("b", "Another one."),
        ],
        responses={200: ls.ExplorerPairSerializer, **INVALID},
    )
    def retrieve(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        explorer_rows.stored_state(pair.project)
        row = explorer_rows.pair_row(pair.project, pair)
        ids_by_name = {name: pk for pk, name in planning.project_annotators(pair.project)}
        workers = [name for name in row["annotators"] if name in ids_by_name]
        asked = request.query_params.get("a", ""), request.query_params.get("b", "")
        if any(asked) and disagreement.choose_annotators(row, workers, *asked) != asked:
            raise ValidationError(
                {"a": [f"Name two different annotators who worked on this pair: {', '.join(workers)}."]}
            )
        a, b = disagreement.choose_annotators(row, workers, *asked)
        body: dict[str, Any] = {
            "pair": pair.pk,
            "source_id": pair.source_id,
            "tokens1": pair.tokens1,
            "tokens2": pair.tokens2,
            "workers": workers,
            "a": a,
            "b": b,
            "key": "",
            "row": row,
            "phenomena": [],
            "links": None,
            "phrases": [],
        }
        if a and b:
            (va, vb), _ = adjudication.versions(pair, [ids_by_name[a], ids_by_name[b]])
            body |= {
                "key": disagreement.comparison_key(row, a, b),
                "phenomena": [
                    _type_row(r) for r in disagreement.compare_phenomena(pair, va.phenomena, vb.phenomena)
                ],
                "links": _links(disagreement.compare_links(pair, va.links, vb.links)),
                "phrases": disagreement.compare_phrases(pair, va.phrases, vb.phrases),
            }
        return Response(ls.ExplorerPairSerializer(body).data)


def _is_annotator_pair(value: str) -> bool:
    a, sep, b = value.partition("|")
    return bool(sep and a and b and a != b and "|" not in b)


def _type_row(row: dict[str, Any]) -> dict[str, Any]:
    def side(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"phenomenon": v["obj"], "status": v["status"], "best": float(v["best"])} for v in views]

    ptype = row["ptype"]
    return {
        "ptype": ptype.pk,
        "ptype_name": ptype.name,
        "agree": row["agree"],
        "a": side(row["a"]),
        "b": side(row["b"]),
    }


def _links(compared: dict[str, Any]) -> dict[str, Any]:
    def one_sided(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return [{"i": i, "j": j, "token1": t1, "token2": t2, "sure": sure} for i, j, t1, t2, sure in rows]

    return {
        "both": compared["both"],
        "mixed": compared["mixed"],
        "only_a": one_sided(compared["only_a"]),
        "only_b": one_sided(compared["only_b"]),
        "cells": [cell for line in compared["grid"] for cell in line["cells"] if cell["state"]],
    }


# ---- re-annotation --------------------------------------------------------------------------------


@extend_schema(parameters=[PROJECT_PK])
class ReannotationViewSet(LeadTool):
    """Re-annotation rounds: the rounds with agreement before and after, and queuing a new one."""

    pagination_class = Page

    @extend_schema(
        summary="Re-annotation rounds, newest first, with agreement before and now (leads only)",
        parameters=[
            OpenApiParameter(
                "seed", OpenApiTypes.INT, OpenApiParameter.QUERY, description="Rounds of this seed."
            ),
            OpenApiParameter("round", OpenApiTypes.INT, OpenApiParameter.QUERY, description="Round number."),
        ],
        responses=ls.ReannotationRoundSerializer(many=True),
    )
    def list(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        rounds = ReannotationRound.objects.filter(project=project).select_related("before_snapshot")
        for name in ("seed", "round"):
            value = int_query(request, name)
            if value is not None:
                rounds = rounds.filter(**{name: value})
        page = self.paginate_queryset(rounds.order_by("-round")) or []
        compared = reannotation.stored_before_after(project, list(page))
        data = ls.ReannotationRoundSerializer(page, many=True, context={"compared": compared}).data
        return self.get_paginated_response(data)

    @extend_schema(
        summary="Queue a re-annotation round (a task); with dry_run only the draw (leads only)",
        description="The rule flags pairs (`label_disagreement`; `do_f1_below` with params.threshold; "
        "`selected` with params.pairs), agreeing pairs are mixed in and the queue is shuffled with the "
        "seed. The round is queued by a worker: 202 names where it appears (`poll`). The same draw on "
        "unchanged annotations queues nothing twice. 503: the task queue is unreachable, nothing queued.",
        request=ls.ReannotationRequestSerializer,
        responses={
            200: ls.ReannotationQueuedSerializer,
            202: ls.ReannotationQueuedSerializer,
            **INVALID,
            503: OpenApiResponse(description="The task queue is unreachable; nothing was queued."),
        },
    )
    def create(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = ls.ReannotationRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        seed = fields.get("seed")
        seed = forms.new_seed() if seed is None else seed
        _, rows = disagreement.project_rows(project)
        draw = reannotation.draw(rows, fields["rule"], fields.get("params") or {}, seed=seed)
        body = {"queued": False, "draw": _draw(draw), "poll": None}
        if fields["dry_run"]:
            return Response(body)
        try:
            taskqueue.enqueue(
                "annotator.queue_reannotation", project.pk, draw.rule, draw.params, draw.seed, request.user.pk
            )
        except taskqueue.QueueUnavailable as exc:  # nothing was queued; say so
            return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        poll = reverse("api-reannotation-list", kwargs={"project_pk": project.pk}) + f"?seed={draw.seed}"
        body |= {"queued": True, "poll": request.build_absolute_uri(poll)}
        return Response(body, status=status.HTTP_202_ACCEPTED)


def _draw(draw: reannotation.Draw) -> dict[str, Any]:
    return {
        "rule": draw.rule,
        "params": draw.params,
        "seed": draw.seed,
        "fraction": draw.fraction,
        "flagged": draw.flagged,
        "sampled": draw.sampled,
        "order": draw.order,
    }


# ---- adjudication ---------------------------------------------------------------------------------


def _gold(pair: Pair, version: int) -> Response:
    """The answer to every gold change: the new version and the gold layer as it now stands."""
    _, gold = adjudication.versions(pair, [])
    return Response({"version": version, "gold": ls.AdjudicationVersionSerializer(gold).data})


@extend_schema(parameters=[PROJECT_PK, PAIR_PK])
class AdjudicationViewSet(LeadTool):
    """A pair's versions and the gold layer built from them; every change carries the gold sheet's
    `base_version` (stale → 409 with the current version)."""

    @extend_schema(
        summary="The annotators' versions of a pair and its gold layer with its version (leads only)",
        responses=ls.AdjudicationSerializer,
    )
    def list(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        version_list, gold = adjudication.pair_versions(pair)
        body = {
            "pair": pair.pk,
            "project": pair.project_id,
            "source_id": pair.source_id,
            "versions": version_list,
            "gold": gold,
            "in_gold": {
                kind: sorted(ids) for kind, ids in adjudication.rows_in_gold(version_list, gold).items()
            },
        }
        return Response(ls.AdjudicationSerializer(body).data)

    @extend_schema(
        summary="Replace the gold with a copy of one annotator's version",
        request=ls.TakeVersionSerializer,
        responses={200: ls.GoldResultSerializer, **GOLD_ERRORS},
    )
    @action(detail=False, methods=["post"])
    def take(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        fields = validated(ls.TakeVersionSerializer, request.data)
        source = adjudication.project_annotator(pair, fields["source"])
        version = adjudication.take_version(pair, source, request.user, base_version=fields["base_version"])
        return _gold(pair, version)

    @extend_schema(
        summary="Add selected rows of the annotators' versions to gold (rows gold has are skipped)",
        request=ls.MergeSerializer,
        responses={200: ls.GoldResultSerializer, **GOLD_ERRORS},
    )
    @action(detail=False, methods=["post"])
    def merge(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        fields = validated(ls.MergeSerializer, request.data)
        label_from = fields.get("label_from")
        version = adjudication.merge_into_gold(
            pair,
            request.user,
            phenomenon_ids=fields["phenomena"],
            link_ids=fields["links"],
            phrase_ids=fields["phrase_alignments"],
            label_from=adjudication.project_annotator(pair, label_from, field="label_from")
            if label_from is not None
            else None,
            base_version=fields["base_version"],
        )
        return _gold(pair, version)

    @extend_schema(
        summary="Set the gold pair label",
        request=ls.GoldLabelSerializer,
        responses={200: ls.GoldResultSerializer, **GOLD_ERRORS},
    )
    @action(detail=False, methods=["post"])
    def label(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        fields = validated(ls.GoldLabelSerializer, request.data)
        version = adjudication.set_gold_label(
            pair, request.user, fields["label"], base_version=fields["base_version"]
        )
        return _gold(pair, version)


ROW_ERRORS = {
    **GOLD_ERRORS,
    400: OpenApiResponse(description="Invalid input, or the row is not in this pair's gold."),
}


@extend_schema(parameters=[PROJECT_PK, PAIR_PK])
class GoldPhenomenonViewSet(LeadTool):
    lookup_url_kwarg = "phenomenon_pk"

    @extend_schema(
        summary="Add a phenomenon to the gold layer",
        request=ls.GoldPhenomenonCreateSerializer,
        responses={200: ls.GoldResultSerializer, **GOLD_ERRORS},
    )
    def create(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        fields = validated(ls.GoldPhenomenonCreateSerializer, request.data)
        base_version = fields.pop("base_version")
        version = adjudication.add_gold_phenomenon(
            pair, request.user, fields.pop("ptype"), base_version=base_version, **fields
        )
        return _gold(pair, version)

    @extend_schema(
        summary="Change a gold phenomenon (validated as a whole)",
        parameters=[OpenApiParameter("phenomenon_pk", OpenApiTypes.INT, OpenApiParameter.PATH)],
        request=s.PhenomenonUpdateSerializer,
        responses={200: ls.GoldResultSerializer, **ROW_ERRORS},
    )
    def partial_update(self, request: Request, project_pk: str, pair_pk: str, phenomenon_pk: str) -> Response:
        pair = self.pair()
        changes = validated(s.PhenomenonUpdateSerializer, request.data)
        base_version = changes.pop("base_version")
        version = adjudication.update_gold_phenomenon(
            pair, request.user, _path_id(phenomenon_pk), base_version=base_version, **changes
        )
        return _gold(pair, version)

    @extend_schema(
        summary="Remove a gold phenomenon",
        parameters=[
            OpenApiParameter("phenomenon_pk", OpenApiTypes.INT, OpenApiParameter.PATH),
            BASE_VERSION_PARAM,
        ],
        responses={200: ls.GoldResultSerializer, **ROW_ERRORS},
    )
    def destroy(self, request: Request, project_pk: str, pair_pk: str, phenomenon_pk: str) -> Response:
        pair = self.pair()
        base_version = int_query(request, "base_version", required=True)
        version = adjudication.remove_gold_phenomenon(
            pair, request.user, _path_id(phenomenon_pk), base_version=base_version
        )
        return _gold(pair, version)


@extend_schema(parameters=[PROJECT_PK, PAIR_PK])
class GoldLinkViewSet(LeadTool):
    lookup_url_kwarg = "link_pk"

    @extend_schema(
        summary="Add a link to the gold layer, or re-mark it sure/possible",
        request=ls.GoldLinkSerializer,
        responses={200: ls.GoldResultSerializer, **GOLD_ERRORS},
    )
    def create(self, request: Request, project_pk: str, pair_pk: str) -> Response:
        pair = self.pair()
        fields = validated(ls.GoldLinkSerializer, request.data)
        version = adjudication.set_gold_link(
            pair,
            request.user,
            fields["i"],
            fields["j"],
            sure=fields["sure"],
            base_version=fields["base_version"],
        )
        return _gold(pair, version)

    @extend_schema(
        summary="Remove a gold link",
        parameters=[OpenApiParameter("link_pk", OpenApiTypes.INT, OpenApiParameter.PATH), BASE_VERSION_PARAM],
        responses={200: ls.GoldResultSerializer, **ROW_ERRORS},
    )
    def destroy(self, request: Request, project_pk: str, pair_pk: str, link_pk: str) -> Response:
        pair = self.pair()
        base_version = int_query(request, "base_version", required=True)
        version = adjudication.remove_gold_link(
            pair, request.user, _path_id(link_pk), base_version=base_version
        )
        return _gold(pair, version)


@extend_schema(parameters=[PROJECT_PK, PAIR_PK])
class GoldPhraseAlignmentViewSet(LeadTool):
    lookup_url_kwarg = "alignment_pk"

    @extend_schema(
        summary="Remove a gold phrase alignment",
        parameters=[
            OpenApiParameter("alignment_pk", OpenApiTypes.INT, OpenApiParameter.PATH),
            BASE_VERSION_PARAM,
        ],
        responses={200: ls.GoldResultSerializer, **ROW_ERRORS},
    )
    def destroy(self, request: Request, project_pk: str, pair_pk: str, alignment_pk: str) -> Response:
        pair = self.pair()
        base_version = int_query(request, "base_version", required=True)
        version = adjudication.remove_gold_phrase(
            pair, request.user, _path_id(alignment_pk), base_version=base_version
        )
        return _gold(pair, version)
