"""Every rule the editor enforces, the REST API enforces too: the same refusal with the same message.

Each case posts the same illegal action through the editor's htmx endpoint and through the REST
endpoint, as the same annotator on the same pair. The editor answers 422 (a broken rule, the message
in the panel's partial) or 409 (stale version); the API answers 400 `{field: [message]}` or 409. Both
call the one service that holds the rule, so the message is the same text.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.annotation import undo
from annotator.models import AlignmentLink, Phenomenon, Project
from tests import make

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def world(settings):
    return make.two_projects()


@dataclass
class Case:
    """One rule: how to set the world up, what the editor posts, what the API sends, what both say."""

    setup: Callable[[make.TwoProjects], dict[str, Any]]
    editor: tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]  # URL name (+ row id), form data
    api: tuple[str, str, Callable[[dict[str, Any]], dict[str, Any]]]  # method, path, JSON body
    field: str
    message: str
    status: tuple[int, int] = (422, 400)  # editor, API


def _project(world: make.TwoProjects, **fields: Any) -> dict[str, Any]:
    Project.objects.filter(pk=world.project.pk).update(**fields)
    world.project.refresh_from_db()
    return {"pair": world.pair, "ptype": world.any_ptype().pk}


def _phenomenon_on(world: make.TwoProjects, *, label: str = "", **project: Any) -> dict[str, Any]:
    """A phenomenon of anna's made while the project allowed it, then the project or label changed."""
    ctx = {"pair": world.pair, "ptype": world.any_ptype().pk}
    phenomenon, _ = annotation_services.add_phenomenon(
        world.pair, world.anna, ctx["ptype"], scope1=[1], scope2=[0], base_version=None
    )
    if label:
        annotation_services.set_pair_label(world.pair, world.anna, label, base_version=None)
    if project:
        Project.objects.filter(pk=world.project.pk).update(**project)
    return {**ctx, "phenomenon": phenomenon.pk}


def _plain(world: make.TwoProjects) -> dict[str, Any]:
    return {"pair": world.pair, "ptype": world.any_ptype().pk}


def _with_link(world: make.TwoProjects) -> dict[str, Any]:
    annotation_services.set_links(world.pair, world.anna, [(1, 0)], sure=True, base_version=None)
    return _plain(world)


def _stale(world: make.TwoProjects) -> dict[str, Any]:
    annotation_services.set_links(world.pair, world.anna, [(1, 0)], sure=True, base_version=None)
    annotation_services.set_links(world.pair, world.anna, [(2, 1)], sure=True, base_version=None)
    return {**_plain(world), "base_version": 1}


def _phenomenon_form(ctx: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"ptype": ctx["ptype"], "scope1": "1", "scope2": "0", **extra}


def _phenomenon_json(ctx: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"pair": ctx["pair"].pk, "ptype": ctx["ptype"], "scope1": [1], "scope2": [0], **extra}


NOT_ANNOTATED = "This project does not annotate phenomena."
GATED = "This project types paraphrases only: label the pair paraphrase first."
PARAPHRASES = Project.PhenomenaFor.PARAPHRASES

CASES = {
    "phenomenon on a project without the phenomena layer": Case(
        lambda w: _project(w, layer_phenomena=False),
        ("phenomenon-create", _phenomenon_form),
        ("post", "/api/phenomena/", _phenomenon_json),
        "ptype",
        NOT_ANNOTATED,
    ),
    "phenomenon on a pair not labelled paraphrase (paraphrases only)": Case(
        lambda w: _project(w, phenomena_for=PARAPHRASES),
        ("phenomenon-create", _phenomenon_form),
        ("post", "/api/phenomena/", _phenomenon_json),
        "ptype",
        GATED,
    ),
    "phenomenon on a pair labelled non-paraphrase (paraphrases only)": Case(
        lambda w: {
            **_project(w, phenomena_for=PARAPHRASES),
            "label": annotation_services.set_pair_label(w.pair, w.anna, "non_paraphrase", base_version=None),
        },
        ("phenomenon-create", _phenomenon_form),
        ("post", "/api/phenomena/", _phenomenon_json),
        "ptype",
        GATED,
    ),
    "changing a phenomenon once the label is non-paraphrase (paraphrases only)": Case(
        lambda w: _phenomenon_on(w, label="non_paraphrase", phenomena_for=PARAPHRASES),
        ("phenomenon-update", lambda ctx: _phenomenon_form(ctx, scope1="2")),
        ("patch", "/api/phenomena/{phenomenon}/", lambda ctx: {"scope1": [2]}),
        "ptype",
        GATED,
    ),
    "changing a phenomenon once the phenomena layer is off": Case(
        lambda w: _phenomenon_on(w, layer_phenomena=False),
        ("phenomenon-update", lambda ctx: _phenomenon_form(ctx, scope1="2")),
        ("patch", "/api/phenomena/{phenomenon}/", lambda ctx: {"scope1": [2]}),
        "ptype",
        NOT_ANNOTATED,
    ),
    "a type outside the project's tagset": Case(
        _plain,
        ("phenomenon-create", lambda ctx: _phenomenon_form(ctx, ptype=987654)),
        ("post", "/api/phenomena/", lambda ctx: _phenomenon_json(ctx, ptype=987654)),
        "ptype",
        "Type 987654 is not in this project's tagset.",
    ),
    "a scope token outside the member": Case(
        _plain,
        ("phenomenon-create", lambda ctx: _phenomenon_form(ctx, scope1="31")),
        ("post", "/api/phenomena/", lambda ctx: _phenomenon_json(ctx, scope1=[31])),
        "scope1",
        "Token 31 is outside member 1, which has 6 tokens (0–5).",
    ),
    "switching where there is no link": Case(
        _plain,
        ("link-toggle", lambda ctx: {"i": "0", "j": "3"}),
        ("post", "/api/links/toggle/", lambda ctx: {"pair": ctx["pair"].pk, "links": [[0, 3]]}),
        "i",
        "There is no link between the selected tokens to switch.",
    ),
    "a link to a token outside member 2": Case(
        _plain,
        ("link-add", lambda ctx: {"i": "1", "j": "9"}),
        ("post", "/api/links/", lambda ctx: {"pair": ctx["pair"].pk, "links": [[1, 9]]}),
        "j",
        "Token 9 is outside member 2, which has 4 tokens (0–3).",
    ),
    "a phrase alignment without a node": Case(
        _plain,
        ("phrase-alignment-add", lambda ctx: {"node1": "", "node2": ""}),
        (
            "post",
            "/api/phrase-alignments/",
            lambda ctx: {"pair": ctx["pair"].pk, "node1": None, "node2": None},
        ),
        "node1",
        "Pick a node in at least one of the two trees.",
    ),
}


def _editor(world: make.TwoProjects, case: Case, ctx: dict[str, Any]) -> Any:
    name, data = case.editor
    args = [world.project.pk, world.pair.pk] + ([ctx["phenomenon"]] if "phenomenon" in ctx else [])
    version = ctx.get("base_version", annotation_services.sheet_version(world.pair, world.anna))
    client = Client()
    client.force_login(world.anna)
    return client.post(
        reverse(f"annotator:{name}", args=args), {"base_version": version, **data(ctx)}, **HTMX
    )


def _api(world: make.TwoProjects, case: Case, ctx: dict[str, Any]) -> Any:
    method, path, body = case.api
    version = ctx.get("base_version", annotation_services.sheet_version(world.pair, world.anna))
    send = getattr(make.api_client(world.anna), method)
    return send(path.format(**ctx), {"base_version": version, **body(ctx)}, format="json")


def _unchanged(world: make.TwoProjects) -> tuple[Any, ...]:
    mine = {"pair": world.pair, "annotator": world.anna}
    return (
        annotation_services.sheet_version(world.pair, world.anna),
        sorted(Phenomenon.objects.filter(**mine).values_list("pk", "scope1", "ptype_id")),
        sorted(AlignmentLink.objects.filter(**mine).values_list("i", "j", "sure")),
    )


@pytest.mark.parametrize("through", ["editor", "api"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_editor_and_api_refuse_alike(world, case, through):
    ctx = case.setup(world)
    before = _unchanged(world)
    if through == "editor":
        response = _editor(world, case, ctx)
        assert response.status_code == case.status[0], response.content[:500]
        assert case.message in html.unescape(response.content.decode())
    else:
        response = _api(world, case, ctx)
        assert response.status_code == case.status[1], response.content[:500]
        expected = case.message if case.field == "detail" else [case.message]
        assert response.json()[case.field] == expected
    assert _unchanged(world) == before  # refused: nothing saved, the version not bumped


def test_switching_links_through_the_api_as_in_the_editor(world):
    annotation_services.set_links(world.pair, world.anna, [(1, 0), (4, 2)], sure=True, base_version=None)
    version = annotation_services.sheet_version(world.pair, world.anna)
    body = {"pair": world.pair.pk, "links": [[0, 3], [1, 0], [4, 2]], "base_version": version}
    response = make.api_client(world.anna).post("/api/links/toggle/", body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == version + 1
    assert {(link["i"], link["j"], link["sure"]) for link in response.json()["links"]} == {
        (1, 0, False),
        (4, 2, False),
    }
    assert not AlignmentLink.objects.filter(annotator=world.anna, i=0, j=3).exists()


def test_undo_restores_a_phenomenon_the_gate_would_refuse_now(world):
    """Undo puts back what was there: a phenomenon deleted under a non-paraphrase label comes back."""
    Project.objects.filter(pk=world.project.pk).update(phenomena_for=PARAPHRASES)
    world.pair.project.refresh_from_db()
    phenomenon, _ = annotation_services.add_phenomenon(
        world.pair, world.anna, world.any_ptype(), scope1=[1], scope2=[0], base_version=None, check_open=False
    )
    annotation_services.set_pair_label(world.pair, world.anna, "non_paraphrase", base_version=None)
    version = annotation_services.delete_phenomenon(phenomenon, base_version=None)
    undo.undo_last(world.pair, world.anna, base_version=version)
    assert Phenomenon.objects.filter(pair=world.pair, annotator=world.anna).count() == 1


@pytest.mark.parametrize("through", ["editor", "api"])
def test_a_stale_version_is_a_conflict_naming_the_current_version(world, through):
    ctx = _stale(world)
    before = _unchanged(world)
    link = ("link-add", lambda ctx: {"i": "3", "j": "2"})
    api = ("post", "/api/links/", lambda ctx: {"pair": ctx["pair"].pk, "links": [[3, 2]]})
    case = Case(_stale, link, api, "detail", "", status=(409, 409))
    if through == "editor":
        response = _editor(world, case, ctx)
        assert response.status_code == 409
        assert "changed in another tab or on another device" in response.content.decode()
        assert "now at version 3" in " ".join(response.content.decode().split()), response.content.decode()
    else:
        response = _api(world, case, ctx)
        assert response.status_code == 409
        assert response.json()["current_version"] == 3
        assert "changed in another tab or device" in response.json()["detail"]
    assert _unchanged(world) == before
