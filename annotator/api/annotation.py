"""An annotator's work on a pair: pair labels, phenomena, word alignment links, phrase alignments."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator import access
from annotator.annotation import services as annotation_services
from annotator.api import serializers as s
from annotator.api.common import (
    BASE_VERSION_PARAM,
    ERRORS,
    Page,
    ServiceErrors,
    filtered,
    int_param,
    int_query,
    pair_to_annotate,
    represent,
    signed_in,
    validated,
)
from annotator.api.permissions import ChangesOwnAnnotation
from annotator.models import (
    AlignmentLink,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
)

ANNOTATION_FILTER_PARAMS = [
    int_param("project", "Project id."),
    int_param("pair", "Pair id."),
    int_param("annotator", "Annotator's user id (others' rows: leads only)."),
]
ANNOTATION_FILTERS = {"project": "pair__project_id", "pair": "pair_id", "annotator": "annotator_id"}


class AnnotationViewSet(
    ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Common read side of the annotation layers: only rows `access.visible_annotations` allows."""

    model: type[Any]
    pagination_class = Page
    permission_classes = [IsAuthenticated, ChangesOwnAnnotation]

    def get_queryset(self) -> QuerySet[Any]:
        rows = access.visible_annotations(self.request.user, self.model.objects.order_by("pair_id", "pk"))
        return filtered(self.request, rows, ANNOTATION_FILTERS) if self.action == "list" else rows

    def changeable(self) -> Any:
        """The row to change: visible (else 404), yours (else 403), its pair still assigned to you."""
        row = self.get_object()
        pair_to_annotate(self.request.user, row.pair_id)
        return row


@extend_schema_view(
    list=extend_schema(summary="Pair labels (annotators' sheets)", parameters=ANNOTATION_FILTER_PARAMS)
)
class PairLabelViewSet(AnnotationViewSet):
    model = PairLabel
    serializer_class = s.PairLabelSerializer

    @extend_schema(
        summary="Set your label and/or comment for a pair",
        request=s.PairLabelWriteSerializer,
        responses={200: s.PairLabelSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PairLabelWriteSerializer, request.data)
        pair = pair_to_annotate(request.user, fields["pair"])
        sheet = annotation_services.set_sheet_fields(
            pair,
            signed_in(request),
            base_version=fields["base_version"],
            label=fields.get("label"),
            comment=fields.get("comment"),
        )
        return Response(represent(s.PairLabelSerializer, sheet))


@extend_schema_view(
    list=extend_schema(
        summary="Phenomena (paraphrase-type annotations)",
        parameters=[*ANNOTATION_FILTER_PARAMS, int_param("ptype", "Paraphrase type id.")],
    )
)
class PhenomenonViewSet(AnnotationViewSet):
    model = Phenomenon
    serializer_class = s.PhenomenonSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[Any]:
        rows = super().get_queryset()
        return filtered(self.request, rows, {"ptype": "ptype_id"}) if self.action == "list" else rows

    @extend_schema(
        summary="Add a phenomenon to your sheet of a pair",
        description=(
            "400 when the project does not annotate phenomena, or types paraphrases only and your "
            "label of the pair is not paraphrase (the editor's rule)."
        ),
        request=s.PhenomenonCreateSerializer,
        responses={201: s.PhenomenonResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PhenomenonCreateSerializer, request.data)
        pair = pair_to_annotate(request.user, fields.pop("pair"))
        phenomenon, version = annotation_services.add_phenomenon(
            pair, request.user, fields.pop("ptype"), base_version=fields.pop("base_version"), **fields
        )
        body = {"version": version, "phenomenon": represent(s.PhenomenonSerializer, phenomenon)}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a phenomenon of yours (validated as a whole)",
        description="400 under the same rule as adding one (phenomena layer on, label paraphrase if gated).",
        request=s.PhenomenonUpdateSerializer,
        responses={200: s.PhenomenonResultSerializer, **ERRORS},
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        phenomenon = self.changeable()
        changes = validated(s.PhenomenonUpdateSerializer, request.data)
        phenomenon, version = annotation_services.update_phenomenon(
            phenomenon, base_version=changes.pop("base_version"), actor=request.user, **changes
        )
        return Response({"version": version, "phenomenon": represent(s.PhenomenonSerializer, phenomenon)})

    @extend_schema(
        summary="Delete a phenomenon of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        phenomenon = self.changeable()
        version = annotation_services.delete_phenomenon(
            phenomenon, base_version=base_version, actor=request.user
        )
        return Response({"version": version})


@extend_schema_view(
    list=extend_schema(summary="Word-alignment links (sure/possible)", parameters=ANNOTATION_FILTER_PARAMS)
)
class AlignmentLinkViewSet(AnnotationViewSet):
    model = AlignmentLink
    serializer_class = s.AlignmentLinkSerializer
    http_method_names = ["get", "post", "delete", "head", "options"]

    def _result(self, pair: Pair, version: int) -> Response:
        links = AlignmentLink.objects.filter(pair=pair, annotator_id=self.request.user.pk, is_gold=False)
        links_data = [represent(s.AlignmentLinkSerializer, link) for link in links]
        return Response({"version": version, "links": links_data})

    @extend_schema(
        summary="Add a block of links to your sheet (or re-mark them sure/possible)",
        request=s.LinksWriteSerializer,
        responses={200: s.LinksResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.LinksWriteSerializer, request.data)
        pair = pair_to_annotate(request.user, fields["pair"])
        version = annotation_services.set_links(
            pair,
            request.user,
            [tuple(link) for link in fields["links"]],
            sure=fields["sure"],
            base_version=fields["base_version"],
        )
        return self._result(pair, version)

    @extend_schema(
        summary="Remove a block of links from your sheet",
        request=s.LinksRemoveSerializer,
        responses={200: s.LinksResultSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def remove(self, request: Request) -> Response:
        fields = validated(s.LinksRemoveSerializer, request.data)
        pair = pair_to_annotate(request.user, fields["pair"])
        version = annotation_services.remove_links(
            pair, request.user, [tuple(link) for link in fields["links"]], base_version=fields["base_version"]
        )
        return self._result(pair, version)

    @extend_schema(
        summary="Switch existing links of yours between sure and possible",
        description=(
            "The existing links among the block all become the opposite of the first existing one; "
            "a block without an existing link gets 400 (as in the editor)."
        ),
        request=s.LinksRemoveSerializer,
        responses={200: s.LinksResultSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def toggle(self, request: Request) -> Response:
        fields = validated(s.LinksRemoveSerializer, request.data)
        pair = pair_to_annotate(request.user, fields["pair"])
        version, _ = annotation_services.toggle_links(
            pair, request.user, [tuple(link) for link in fields["links"]], base_version=fields["base_version"]
        )
        return self._result(pair, version)

    @extend_schema(
        summary="Remove one link of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        link = self.changeable()
        version = annotation_services.remove_links(
            link.pair, request.user, [(link.i, link.j)], base_version=base_version
        )
        return Response({"version": version})


@extend_schema_view(
    list=extend_schema(
        summary="Phrase alignments between parse-tree nodes", parameters=ANNOTATION_FILTER_PARAMS
    )
)
class PhraseAlignmentViewSet(AnnotationViewSet):
    model = PhraseAlignment
    serializer_class = s.PhraseAlignmentSerializer
    http_method_names = ["get", "post", "delete", "head", "options"]

    @extend_schema(
        summary="Align a node of tree 1 with a node of tree 2 (or with nothing: null)",
        request=s.PhraseAlignmentCreateSerializer,
        responses={201: s.PhraseAlignmentResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PhraseAlignmentCreateSerializer, request.data)
        pair = pair_to_annotate(request.user, fields["pair"])
        alignment, version = annotation_services.add_phrase_alignment(
            pair,
            request.user,
            fields["node1"],
            fields["node2"],
            sure=fields["sure"],
            base_version=fields["base_version"],
        )
        body = {"version": version, "phrase_alignment": represent(s.PhraseAlignmentSerializer, alignment)}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remove a phrase alignment of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        alignment = self.changeable()
        version = annotation_services.remove_phrase_alignment(
            alignment, base_version=base_version, actor=request.user
        )
        return Response({"version": version})


# ---- evaluation -----------------------------------------------------------------------------------
