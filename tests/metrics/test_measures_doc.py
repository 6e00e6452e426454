"""docs/measures.md: every anchor the code cites exists; the docstrings cite it, not the outside spec."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "measures.md"
CITATION = re.compile(r"docs/measures\.md((?:#[a-z0-9-]+(?:,\s*)?)+)")


def anchors() -> list[str]:
    return re.findall(r"\{#([a-z0-9-]+)\}", DOC.read_text(encoding="utf-8"))


def cited() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted((REPO / "metrics").glob("*.py")):
        for group in CITATION.findall(path.read_text(encoding="utf-8")):
            for anchor in re.findall(r"#([a-z0-9-]+)", group):
                out.setdefault(anchor, set()).add(path.name)
    return out


def test_anchors_are_unique():
    names = anchors()
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_anchor_cited_in_metrics_exists():
    missing = {a: sorted(files) for a, files in cited().items() if a not in anchors()}
    assert not missing, missing


def test_every_link_inside_the_page_exists():
    links = set(re.findall(r"\]\(#([a-z0-9-]+)\)", DOC.read_text(encoding="utf-8")))
    assert links and not links - set(anchors()), sorted(links - set(anchors()))


def test_the_measures_modules_cite_the_page_and_not_a_file_outside_the_repository():
    for path in sorted((REPO / "metrics").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "shared/specs" not in text, path.name
        for match in re.finditer(r"\b[Ss]pec §", text):  # a spec section only beside the page's anchor
            assert "docs/measures.md#" in text[max(0, match.start() - 200) : match.start()], (
                f"{path.name}: {text[match.start() - 60 : match.end() + 20]!r}"
            )
    assert {"do", "tpo", "n", "kappa-c", "fleiss", "cohen", "spade", "sense-layers", "statistics"} <= set(
        cited()
    )
