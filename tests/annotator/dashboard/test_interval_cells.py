"""Every measure the dashboard shows carries its 95 % interval beside it when the current figures have one
(`<key>.ci95`): Cohen's and Fleiss' κ of the pair labels, ALIR/ALIP per annotator and their mean, and the
two-step evaluation's Fleiss' κ before and after re-evaluation and Cohen's κ."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.template.loader import render_to_string

from annotator.dashboard.tables import alignment_tables, evaluation_rows, label_tables

NAMES = ["ann", "ben", "cem"]


def entry(value: float, part: str = "", by: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"value": value}
    if part:
        out[part] = by or {}
    return out


def render(partial: str, **context: Any) -> str:
    return render_to_string(
        f"dashboard/dashboard.html#{partial}",
        {
            "names": NAMES,
            "project": SimpleNamespace(pk=1, name="p", layers=[], layer_evaluation=True),
            **context,
        },
    )


def test_pair_label_kappas_show_their_intervals() -> None:
    measures = {
        "pair_labels.cohen.ci95": entry([0.11, 0.52], "by_pair", {"ann|ben": [0.21, 0.62]}),
        "pair_labels.fleiss.ci95": entry([0.33, 0.74]),
    }
    results = {
        "report": {"measures": measures},
        "pair_labels": {
            "cohen": {"value": 0.4, "by_pair": {"ann|ben": 0.5, "ann|cem": 0.3}, "n_items": {"ann|ben": 4}},
            "fleiss": {"value": 0.55, "n_items": 4},
            "counts": {},
            "disagreeing_pairs": 1,
        },
    }
    labels = label_tables(results, NAMES)
    assert labels is not None
    assert labels["rows"][0] == ("ann|ben", 0.5, 4, [0.21, 0.62])
    assert labels["rows"][1][3] is None  # no interval for that pair: no cell text
    html = render("label-agreement", labels=labels)
    for text in ("0.21–0.62", "0.11–0.52", "0.33–0.74"):
        assert text in html
    assert html.count('class="ci"') == 3


def test_alir_and_alip_show_their_intervals() -> None:
    measures = {
        "spade.alir": entry(0.8, "by_annotator", {"ann": 0.7, "ben": 0.9}),
        "spade.alip": entry(0.6, "by_annotator", {"ann": 0.5, "ben": 0.7}),
        "spade.alir.ci95": entry([0.61, 0.93], "by_annotator", {"ann": [0.41, 0.88]}),
        "spade.alip.ci95": entry([0.42, 0.77], "by_annotator", {"ben": [0.55, 0.81]}),
    }
    tables = alignment_tables(measures, NAMES, [])
    assert tables is not None and tables["spade"]["alir"] == (0.8, [0.61, 0.93])
    html = render("alignment-agreement", alignment=tables)
    for text in ("0.41–0.88", "0.55–0.81", "0.61–0.93", "0.42–0.77"):
        assert text in html


def test_evaluation_kappas_show_their_intervals() -> None:
    measures = {
        "fleiss.G5": {"value": 0.5, "n_items": 10},
        "fleiss.G5.ci95": entry([0.31, 0.66]),
        "fleiss.after.G5": {"value": 0.6},
        "fleiss.after.G5.ci95": entry([0.41, 0.71]),
        "cohen.G5": {"value": 0.45},
        "cohen.G5.ci95": entry([0.22, 0.64]),
    }
    rows = evaluation_rows(measures)
    html = render("evaluation", evaluation_rows=rows)
    for text in ("0.31–0.66", "0.41–0.71", "0.22–0.64"):
        assert text in html


def test_the_evaluation_summary_shows_every_kappas_interval() -> None:
    """The evaluation project's dashboard panel and the evaluation page render `_lead_summary.html`."""
    from annotator.evaluation.stats import lead_summary_context

    measures = {
        "fleiss.G5": {"value": 0.5, "n_items": 10},
        "fleiss.G5.ci95": entry([0.31, 0.66]),
        "fleiss.after.G5": {"value": 0.6},
        "fleiss.after.G5.ci95": entry([0.41, 0.71]),
        "cohen.G5": entry(0.45, "by_pair", {"ann|ben": 0.45}),
        "cohen.G5.ci95": entry([0.22, 0.64], "by_pair", {"ann|ben": [0.12, 0.74]}),
    }
    html = render_to_string("evaluation/_lead_summary.html", lead_summary_context(measures))
    for text in ("0.31–0.66", "0.41–0.71", "0.22–0.64", "0.12–0.74"):
        assert text in html


def test_word_alignment_precision_recall_and_f1_show_their_intervals() -> None:
    measures: dict[str, Any] = {}
    for n, part in enumerate(("precision", "recall", "f1")):
        measures[f"alignment.words.{part}"] = entry(0.9, "by_pair", {"ann|ben": 0.8})
        measures[f"alignment.words.{part}.ci95"] = entry(
            [0.5 + n / 100, 0.95], "by_pair", {"ann|ben": [0.3 + n / 100, 0.9]}
        )
    tables = alignment_tables(measures, NAMES, [])
    assert tables is not None
    html = render("alignment-agreement", alignment=tables)
    for n in range(3):
        assert f"{0.5 + n / 100:.2f}–0.95" in html and f"{0.3 + n / 100:.2f}–0.90" in html
