"""A small world for the editor tests: a project with two annotators, a lead, an outsider and an admin.

Saves go through the same URLs the page uses, as htmx requests (the editor's save queue sends
`HX-Request: true`), each carrying the sheet version the page showed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.corpus import projects
from annotator.models import Pair, ParaphraseType, Project
from tests import factories

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """Test users get a cheap password hash: PBKDF2 costs ~1 s per user here, the tests need none of it.
    Test modules import this fixture to use it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Desk:
    project: Project
    pair: Pair
    ann: Any
    bob: Any
    lead: Any
    outsider: Any
    admin: Any
    types: dict[str, ParaphraseType]


def make_desk(**project_fields: Any) -> Desk:
    ann, bob, lead = factories.user("ann"), factories.user("bob"), factories.user("lead")
    outsider, admin = factories.user("outsider"), factories.user("admin", staff=True)
    project = factories.project_with_pairs(
        "Editor", n_pairs=3, lead=lead, annotators=(ann, bob), **project_fields
    )
    factories.project_with_pairs("Elsewhere", n_pairs=1, annotators=(outsider,))
    types = {t.name: t for t in ParaphraseType.objects.filter(tagset=project.tagset)}
    return Desk(project, project.pairs.order_by("position").first(), ann, bob, lead, outsider, admin, types)


def long_pair(project: Project, annotators: tuple[Any, ...], *, n_tokens: int = 60) -> Pair:
    """A pair of two n-token members with some words in common (for size-independence checks)."""
    tokens1 = [f"w{k % 17}" for k in range(n_tokens)]
    tokens2 = [f"w{(k * 7) % 19}" for k in range(n_tokens)]
    pair = projects.add_pair(
        project, f"long{n_tokens}", tokens1=tokens1, tokens2=tokens2, initial_alignment=[]
    )
    projects.assign_pairs(project, annotators, [pair])
    return pair


def fill(pair: Pair, user: Any, ptype: ParaphraseType, *, n_phenomena: int, n_links: int) -> int:
    """Give the user n phenomena and n sure links on the pair through the services; returns the version."""
    version = annotation_services.set_pair_label(pair, user, "paraphrase", base_version=None)
    for k in range(n_phenomena):
        _, version = annotation_services.add_phenomenon(
            pair, user, ptype, scope1=[k, k + 2], scope2=[k + 1], projection="local", base_version=None
        )
    links = [(k, (k * 3) % len(pair.tokens2)) for k in range(n_links)]
    return annotation_services.set_links(pair, user, links, sure=True, base_version=None)


def url(name: str, pair: Pair, *extra: Any) -> str:
    return reverse(f"annotator:{name}", args=[pair.project_id, pair.pk, *extra])


def version(pair: Pair, user: Any) -> int:
    return annotation_services.sheet_version(pair, user)


def save(
    client: Client, name: str, pair: Pair, user: Any, data: dict[str, Any], *extra: Any, **kw: Any
) -> Any:
    """POST a save as the editor does: htmx headers and the current sheet version (unless given)."""
    payload = {"base_version": version(pair, user), **data}
    return client.post(url(name, pair, *extra), payload, **{**HTMX, **kw})


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
