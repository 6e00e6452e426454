"""Bidirectional control characters in tokens are shown as marked code points in the editor and explorer."""

from __future__ import annotations

import pytest
from django.test import Client

from annotator.annotation import services as annotation_services
from annotator.annotation.bidi import BIDI_CONTROLS, visible_bidi
from annotator.leadtools import explorer_rows
from annotator.models import Pair
from tests import make

pytestmark = pytest.mark.django_db
RLO, PDF = "\u202e", "\u202c"


def test_every_control_is_shown_and_the_text_escaped():
    assert len(BIDI_CONTROLS) == 12
    shown = str(visible_bidi(f"<b>{RLO}evil{PDF}"))
    assert shown.startswith("&lt;b&gt;") and RLO not in shown and PDF not in shown
    assert "⟨U+202E⟩</span>evil<span" in shown and "⟨U+202C⟩" in shown
    for char in BIDI_CONTROLS:
        assert char not in str(visible_bidi(f"a{char}b"))
    assert str(visible_bidi("plain")) == "plain"


@pytest.fixture
def project():
    lead, anna, ben = make.user("lead"), make.user("anna"), make.user("ben")
    project = make.project_with_pairs("Bidi", lead=lead, annotators=(anna, ben))
    pair = project.pairs.order_by("position").first()
    tokens = list(pair.tokens1)
    tokens[1] = f"{RLO}evil{PDF}"
    Pair.objects.filter(pk=pair.pk).update(tokens1=tokens, text1=" ".join(tokens))
    pair.refresh_from_db()
    ptype = project.tagset.types.filter(scope_sides="both", projection_required=False).first()
    for user in (anna, ben):
        annotation_services.add_phenomenon(pair, user, ptype, scope1=[1], scope2=[0], base_version=0)
    return project


def page(user, url: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("where", ["editor", "explorer pair", "explorer list"])
def test_pages_show_the_override_as_a_code_point(project, where):
    pair = project.pairs.order_by("position").first()
    url, user = {
        "editor": (f"/projects/{project.pk}/pairs/{pair.pk}/", "anna"),
        "explorer pair": (f"/projects/{project.pk}/explorer/{pair.pk}/", "lead"),
        "explorer list": (f"/projects/{project.pk}/explorer/", "lead"),
    }[where]
    explorer_rows.refresh(project)  # as the computation after the saves has them refreshed
    body = page(project.memberships.get(user__username=user).user, url)
    assert RLO not in body and PDF not in body
    assert "⟨U+202E⟩" in body and 'class="bidi-control"' in body
