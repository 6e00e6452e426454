"""docs/measures.md: every anchor the code cites exists; the docstrings cite it, not the outside spec."""

from __future__ import annotations

import re
from pathlib import Path

from metrics.document import parse_document
from metrics.report import build_report

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


def _documented_key_patterns() -> list[re.Pattern[str]]:
    """The key patterns of the "Report keys" table (#report) as regular expressions."""
    section = DOC.read_text(encoding="utf-8").split("{#report}", 1)[1].split("\n## ", 1)[0]
    patterns = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split(" | ")[0]
        for text in re.findall(r"`([^`]+)`", first):
            rx = re.escape(text.replace("\\|", "|"))
            rx = re.sub(r"\\\{([^}]*)\\\}", lambda m: "(" + m.group(1).replace(",", "|") + ")", rx)
            rx = re.sub(r"\\\[([^\]]*)\\\]", lambda m: "(" + m.group(1).replace("\\|", "|") + ")?", rx)
            rx = rx.replace("\\|", "|").replace("<any\\ iapta\\ key>", ".+").replace("<key>", ".+")
            patterns.append(re.compile(rx))
    return patterns


def test_every_report_key_of_a_full_document_is_in_the_key_table(vila_document_data, evaluation_ratings):
    data = vila_document_data()
    data["annotators"] = ["B", "C", "D"]
    data["phenomena"]["D"] = [dict(x, sense_preserving=True) for x in data["phenomena"]["B"]]
    data["pairs"][0]["initial_alignment"] = [[0, 0], [1, 1]]
    data["word_alignments"] = {r: {"p1": {"sure": [[0, 0], [2, 1]], "possible": [[3, 3]]}} for r in "BCD"}
    data["phrase_alignments"] = {r: [{"pair": "p1", "s1": [0], "s2": [0]}] for r in "BCD"}
    data["system_phrase_alignments"] = {"sys": [{"pair": "p1", "s1": [0], "s2": None}]}
    data["evaluations"] = evaluation_ratings()
    data["pair_labels"] = {"B": {"p1": "paraphrase"}, "C": {"p1": "paraphrase"}}
    data["options"] = {"mc_samples": 10}
    keys = build_report(parse_document(data), ci=True, ci_resamples=20)["measures"]
    patterns = _documented_key_patterns()
    assert len(patterns) > 10
    undocumented = [k for k in keys if not any(p.fullmatch(k) for p in patterns)]
    assert not undocumented, undocumented
    assert any(k.startswith("iapta.sense.both.") for k in keys) and "kappa_c.pi0" in keys
