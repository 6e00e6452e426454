"""The agreement report of a project: its current agreement as JSON, CSV or a printable page.

Nothing is computed here: the recompute pipeline stores the current agreement after every computation
(`annotator.agreement.current`: the report's sections and summary; full snapshots are kept at a slower
cadence, so the export never shows an older state than the dashboard).
CSV flattens the report's measures to rows `measure, scope, key, value` (scope = value, n_items,
by_pair, by_ordered_pair, by_annotator, by_system, by_rater…; nested keys joined with " / ").

Every format also has the `statistics` section: the corpus tables the papers print, each naming the
table it mirrors, as `python -m metrics report --statistics` gives them for the exported document, plus
the records the imports skipped (`annotator.agreement.statistics`). They are the tables the workers
keep (`latest_statistics`: computed by the task `annotator.compute_statistics`, sent whenever a full
report whose κ_C is final is stored), read as they are: the export computes nothing from the project's
annotations, so its memory does not grow with the project. `statistics_state` says what they are of:
"current" (the annotations of these figures), "earlier" (an earlier state of them: newer ones are
being computed) or "computing" (none kept yet; the section is empty). In CSV their rows are
`statistics.<table>, <part>, <key>, <value>`, after the row `statistics, state, , <state>`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.templatetags.static import static

from annotator.agreement import current
from annotator.agreement.statistics import latest_statistics
from annotator.corpus.spreadsheet import SafeWriter
from annotator.models import Project


class NoSnapshot(LookupError):
    """The project has no agreement snapshot yet."""


def snapshot_of(project: Project) -> current.Current:
    """The project's current agreement; NoSnapshot before the first computation."""
    snapshot = current.current(project)
    if snapshot is None:
        raise NoSnapshot(
            f"{project.name} has no agreement report yet: it is computed after the first annotations"
        )
    return snapshot


def report_document(project: Project) -> dict[str, Any]:
    snapshot = snapshot_of(project)
    results = snapshot.results
    return {
        "project": project.name,
        "computed_at": snapshot.computed_at.isoformat(),
        "fingerprint": snapshot.fingerprint,
        "pending": results.get("pending", []),
        "annotators": results.get("annotators", []),
        "headline": results.get("headline", {}),
        "pair_labels": results.get("pair_labels"),
        "report": results.get("report", {}),
        **kept_statistics(project, snapshot.fingerprint),
    }


def kept_statistics(project: Project, fingerprint: str) -> dict[str, Any]:
    """`statistics` (the latest tables the workers kept, or {}) and `statistics_state` ("current" when
    they are of the annotations with this fingerprint, "earlier", or "computing" before the first)."""
    kept = latest_statistics(project)
    if kept is None:
        return {"statistics_state": "computing", "statistics": {}}
    return {"statistics_state": "current" if kept[0] == fingerprint else "earlier", "statistics": kept[1]}


def flatten(measures: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """(measure, scope, key, value) rows of a report's measures, in key order."""
    rows: list[tuple[str, str, str, Any]] = []

    def walk(measure: str, scope: str, key: str, value: Any) -> None:
        if isinstance(value, dict):
            for sub in sorted(value):
                walk(measure, scope, f"{key} / {sub}" if key else str(sub), value[sub])
        elif isinstance(value, list):
            rows.append((measure, scope, key, json.dumps(value)))
        else:
            rows.append((measure, scope, key, value))

    for measure in sorted(measures):
        body = measures[measure]
        if not isinstance(body, dict):
            rows.append((measure, "value", "", body))
            continue
        for scope in sorted(body):
            walk(measure, scope, "", body[scope])
    return rows


def report_json(project: Project) -> bytes:
    return json.dumps(report_document(project), indent=1, ensure_ascii=False).encode("utf-8")


def report_csv(project: Project) -> bytes:
    doc = report_document(project)
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(["measure", "scope", "key", "value"])
    writer.writerows(flatten(doc["report"].get("measures", {})))
    writer.writerow(["statistics", "state", "", doc["statistics_state"]])
    writer.writerows(flatten(statistics_rows(doc["statistics"])))
    return out.getvalue().encode("utf-8")


def statistics_rows(statistics: dict[str, Any]) -> dict[str, Any]:
    """The statistics tables under the names `statistics.<table>` (for `flatten`)."""
    return {f"statistics.{name}": table for name, table in statistics.items()}


STYLESHEET = "corpus/report_print.css"


def report_html(project: Project, *, standalone: bool = True) -> bytes:
    """The printable report. `standalone` (the exported file, opened offline) carries its style sheet
    inside; the page the app serves links it (the app's Content-Security-Policy allows no inline style)."""
    doc = report_document(project)
    rows = flatten(doc["report"].get("measures", {}))
    statistics = flatten(statistics_rows(doc["statistics"]))
    page: str = render_to_string(
        "corpus/report_print.html", {"project": project, "doc": doc, "rows": rows, "statistics": statistics}
    )
    if standalone:
        link = f'<link rel="stylesheet" href="{static(STYLESHEET)}">'
        css = Path(finders.find(STYLESHEET) or "").read_text(encoding="utf-8")
        page = page.replace(link, f"<style>\n{css}</style>", 1)
    return page.encode()
