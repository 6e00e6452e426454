"""One-click explanations of the dashboard's measures, from the sections of docs/measures.md."""

import pytest
from django.urls import reverse

from annotator.core.measure_docs import anchor_for, section
from tests import make

pytestmark = pytest.mark.django_db

DOC = """# The measures

Intro.

## IAPTA DO-measures {#do}

DO F1 compares **phenomena** by their scopes. Range 0…1; undefined when neither annotator has one.

### A detail {#do-detail}

Nested.

## Cohen's κ {#cohen}

Two raters.
"""


@pytest.fixture
def doc(settings, tmp_path):
    path = tmp_path / "measures.md"
    path.write_text(DOC, encoding="utf-8")
    settings.MEASURES_DOC = path
    return path


def test_a_section_runs_to_the_next_heading_of_its_level(doc):
    found = section("do")
    assert found.title == "IAPTA DO-measures"
    assert "Range 0…1" in found.text and "Nested." in found.text and "Two raters" not in found.text
    assert section("missing") is None


def test_measure_keys_find_their_anchor():
    assert anchor_for("iapta.do.f1") == "do" and anchor_for("kappa_c") == "kappa-c"
    assert anchor_for("iapta.tpo.partial.union") == "tpo-multi" and anchor_for("unknown") is None


def test_the_page_renders_the_section_safely(client, doc):
    client.force_login(make.user("ann"))
    page = client.get(reverse("annotator:measure-explanation", args=["do"])).content.decode()
    assert "<strong>phenomena</strong>" in page and "Two raters" not in page
    partial = client.get(reverse("annotator:measure-explanation", args=["cohen"]), HTTP_HX_REQUEST="true")
    assert partial.content.decode().strip().startswith("<article")


def test_a_missing_document_or_section_is_a_404_that_says_so(client, settings, tmp_path, doc):
    client.force_login(make.user("ann"))
    assert (
        "no section #nope"
        in client.get(reverse("annotator:measure-explanation", args=["nope"])).content.decode()
    )
    settings.MEASURES_DOC = tmp_path / "absent.md"
    response = client.get(reverse("annotator:measure-explanation", args=["do"]))
    assert response.status_code == 404 and "not part of this installation" in response.content.decode()
