"""A small world for the API tests: two projects, their leads, two annotators, an outsider and an admin.

Everyone authenticates the way a script does (`Authorization: Token …`), so the tests take the same
path as users. Annotations are made through the services.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.annotation import services as annotation_services
from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import Pair, ParaphraseType, Project, Tagset
from tests import factories


@dataclass
class World:
    lead: Any
    other_lead: Any
    anna: Any
    ben: Any
    admin: Any
    outsider: Any
    project: Project
    other_project: Project

    @property
    def pair(self) -> Pair:
        return self.project.pairs.order_by("position").first()

    def any_ptype(self) -> ParaphraseType:
        """A type without projection that takes scopes in both members (e.g. Diathesis)."""
        return (
            ParaphraseType.objects.filter(
                tagset=self.project.tagset, scope_sides="both", projection_required=False
            )
            .order_by("position")
            .first()
        )

    def projected_ptype(self) -> ParaphraseType:
        return ParaphraseType.objects.filter(tagset=self.project.tagset, projection_required=True).first()


def make_world(settings: Any = None) -> World:
    """The world; with pytest-django's `settings`, passwords hash fast (MD5 is fine for test users)."""
    if settings is not None:
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        isolate_cache(settings)
    # transactional tests flush the data migration's built-in tagsets: put them back (idempotent)
    install_builtin_tagsets(Tagset, ParaphraseType)
    lead, other_lead = factories.user("lena"), factories.user("otto")
    anna, ben = factories.user("anna"), factories.user("ben")
    admin, outsider = factories.user("root", staff=True), factories.user("olga")
    project = factories.project_with_pairs("Alpha", n_pairs=2, lead=lead, annotators=(anna, ben))
    other = factories.project_with_pairs("Beta", n_pairs=1, lead=other_lead, annotators=(ben,))
    return World(lead, other_lead, anna, ben, admin, outsider, project, other)


def isolate_cache(settings: Any) -> None:
    """A private in-memory cache for the test: job progress/cancel flags and recompute keys of one
    test (keyed by ids that the next test reuses) never reach another, and no shared Redis is touched."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    }


def client_for(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def annotate_marked(world: World, user: Any, marker: int = 3) -> None:
    """Give `user` a phenomenon, a link and a pair label on the first pair, all through the services."""
    pair = world.pair
    ptype = world.any_ptype()
    _, version = annotation_services.add_phenomenon(
        pair, user, ptype, scope1=[marker], scope2=[1], base_version=0, comment=f"note-of-{user.username}"
    )
    version = annotation_services.set_links(pair, user, [(marker, 1)], sure=False, base_version=version)
    annotation_services.set_pair_label(pair, user, "paraphrase", base_version=version)
