"""The agreement report of a project: its latest stored AgreementSnapshot as JSON, CSV or a printable page.

Nothing is computed here: the dashboards' recompute pipeline stores snapshots (`annotator.agreement`).
CSV flattens the report's measures to rows `measure, scope, key, value` (scope = value, n_items,
by_pair, by_ordered_pair, by_annotator, by_system, by_rater…; nested keys joined with " / ").

Every format also has the `statistics` section: the corpus tables the papers print, each naming the
table it mirrors, as `python -m metrics report --statistics` gives them for the exported document, plus
the records the imports skipped (`annotator.agreement.statistics`). They are computed here, in the
export job, not stored with the snapshot (Cohn et al.'s Fig. 4 repeats κ_C's Monte Carlo). In CSV
their rows are `statistics.<table>, <part>, <key>, <value>`.
"""

from __future__ import annotations

import io
import json
from typing import Any

from django.template.loader import render_to_string

from annotator.agreement.computation import latest_snapshot
from annotator.agreement.statistics import project_statistics
from annotator.core.spreadsheet import SafeWriter
from annotator.models import AgreementSnapshot, Project


class NoSnapshot(LookupError):
    """The project has no agreement snapshot yet."""


def snapshot_of(project: Project) -> AgreementSnapshot:
    snapshot = latest_snapshot(project)
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
        "statistics": project_statistics(project),
    }


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
    writer.writerows(flatten(statistics_rows(doc["statistics"])))
    return out.getvalue().encode("utf-8")


def statistics_rows(statistics: dict[str, Any]) -> dict[str, Any]:
    """The statistics tables under the names `statistics.<table>` (for `flatten`)."""
    return {f"statistics.{name}": table for name, table in statistics.items()}


def report_html(project: Project) -> bytes:
    doc = report_document(project)
    rows = flatten(doc["report"].get("measures", {}))
    statistics = flatten(statistics_rows(doc["statistics"]))
    return render_to_string(
        "corpus/report_print.html", {"project": project, "doc": doc, "rows": rows, "statistics": statistics}
    ).encode()
