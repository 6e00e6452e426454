"""One-click explanations of the dashboard's measures, from the sections of docs/measures.md."""

import re

import pytest
from django.conf import settings as settings_module
from django.urls import reverse

from annotator.dashboard.measure_docs import MEASURE_ANCHORS, anchor_for, section
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


# ---- the real docs/measures.md ---------------------------------------------------------------------


def _patterns(text: str) -> list[str]:
    """The report keys a section writes in code, as regular expressions: `{a,b}` alternatives,
    `[.x|.y]` optional parts, `*` and `<placeholder>` for any part."""
    out = []
    for span in re.findall(r"`([^`]+)`", text):
        pattern = re.escape(span.strip())
        pattern = re.sub(r"\\\{([^}]*)\\\}", lambda m: "(" + m.group(1).replace(",", "|") + ")", pattern)
        pattern = re.sub(r"\\\[([^\]]*)\\\]", lambda m: "(" + m.group(1).replace("\\|", "|") + ")?", pattern)
        pattern = pattern.replace(r"\*", "[^.]+")
        pattern = re.sub(r"<[^>]*>", ".+", pattern)
        out.append(pattern)
    return out


def defines(text: str, key: str) -> bool:
    """Whether a section writes the key (or, for a family such as `cohen`, keys of it) in code."""
    for pattern in _patterns(text):
        if re.fullmatch(pattern, key) or re.match(re.escape(key) + r"[.\[{<]", pattern.replace("\\", "")):
            return True
    return False


def dashboard_keys() -> set[str]:
    """Every measure key the dashboard's templates and tables link an explanation for."""
    from annotator.dashboard import tables

    keys = set()
    for path in (settings_module.BASE_DIR / "templates").rglob("*.html"):
        keys |= set(re.findall(r'"([A-Za-z0-9_.]+)"\|explain', path.read_text(encoding="utf-8")))
    for spec in (tables.N_MEASURES, tables.TPO_MEASURES, tables.DO_MEASURES, tables.HEATMAPS):
        keys |= {row[0] for row in spec}
    keys |= {k for k in MEASURE_ANCHORS if "-measures" not in k}
    keys |= {f"{k}.ci95" for k in ("iapta.do.f1", "kappa_c", "fleiss.G5", "cohen.M2")}
    keys |= {f"iapta.tpo.{c}.{m}" for c in ("partial", "total") for m in ("f1", "union", "gold")}
    return keys


def test_every_explanation_the_dashboard_links_to_exists_and_defines_its_key():
    checked = []
    for key in sorted(dashboard_keys()):
        anchor = anchor_for(key)
        assert anchor is not None, key
        found = section(anchor)
        assert found is not None, f"{key}: docs/measures.md has no section #{anchor}"
        if key in ("statistics", "bootstrap", "intervals"):  # sections about a family of tables or keys
            continue
        assert defines(found.text, key), f"{key}: section #{anchor} does not define it"
        checked.append(key)
    assert {"iapta.tpo.partial.gold", "statistics.between_corpora", "reeval", "kappa_c.ci95"} <= set(checked)


def test_tpo_gold_and_the_reevaluation_sets_have_the_section_that_defines_them():
    assert anchor_for("iapta.tpo.total.gold") == "tpo-multi" and anchor_for("reeval.G") == "reeval"
    assert anchor_for("alignment.words.f1.ci95") == "intervals"


def test_explanations_start_with_a_reading_guide_without_implementation_names():
    for anchor in (
        "n",
        "tpo",
        "do",
        "word-alignment",
        "kappa-c",
        "spade",
        "fleiss",
        "cohen",
        "reeval",
        "intervals",
    ):
        text = section(anchor).text
        assert text.startswith("**What it answers.**"), anchor
        assert "**How to read it.**" in text, anchor
        for name in ("PCG64", "Generator.random", "ChanceChunk", "rng."):
            assert name not in text, (anchor, name)


def test_defines_refuses_a_key_the_section_does_not_write():
    do = section("do").text
    assert defines(do, "iapta.do.f1.pairwise") and not defines(do, "iapta.n.ph")
    assert not defines(section("tpo").text, "iapta.tpo.partial.gold")  # gold is in #tpo-multi


def test_the_hat_of_pi_is_drawn_over_the_letter(client):
    client.force_login(make.user("ann"))
    page = client.get(reverse("annotator:measure-explanation", args=["kappa-c"])).content.decode()
    assert '<span class="hat">π</span>' in page and "π\u0302" not in page
    assert (
        page.index("**What it answers.**")
        if "**What" in page
        else "<strong>What it answers.</strong>" in page
    )
