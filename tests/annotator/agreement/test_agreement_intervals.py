"""The agreement side's request for intervals (`report_sections(..., intervals_seed=seed)`): a 95 %
interval for every measure, listed as the section `intervals`, equal to `python -m metrics report --ci
--ci-seed seed` on the exported document; without the seed the report is as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache

from annotator.agreement.document import project_document
from annotator.agreement.results import INTERVALS, report_sections
from annotator.dashboard.tables import phenomena_tables
from tests import make

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[3]
NOT_MEASURES = (".n_items", ".reason", ".edit_model", ".pi0_se", ".count", ".by_type", ".ci95")


@pytest.fixture
def team():
    cache.clear()
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(project, anns)
    return project, anns


def cli(doc: dict, tmp_path: Path, *args: str) -> dict:
    path = tmp_path / "project.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(path), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"},
    )
    return json.loads(out.stdout)


def test_every_measure_gets_an_interval_equal_to_the_clis(team, tmp_path):
    project, _ = team
    doc = project_document(project)
    report, _, keys, pending = report_sections(doc, intervals_seed=7)
    measures = report["measures"]
    assert pending == []
    numeric = [
        k
        for k, e in measures.items()
        if not k.endswith(NOT_MEASURES)
        and not k.startswith("reeval.")
        and (
            isinstance(e.get("value"), float)
            or any(isinstance(v, float) for v in (e.get("by_pair") or {}).values())
        )
    ]
    assert {"iapta.do.f1", "iapta.tpo.total.f1", "kappa_c", "alignment.words.precision"} <= set(numeric)
    assert [k for k in numeric if f"{k}.ci95" not in measures] == []
    assert keys[INTERVALS] == sorted(k for k in measures if k.endswith(".ci95"))
    assert report == cli(doc, tmp_path, "--ci", "--ci-seed", "7")
    rows = [
        row
        for _, group in phenomena_tables(measures, project_annotator_names(doc))["groups"]
        for row in group
    ]
    assert rows and all(row.ci is not None for row in rows)  # the dashboard cells render them


def test_without_the_seed_the_report_has_no_interval(team, tmp_path):
    project, _ = team
    doc = project_document(project)
    report, _, keys, _ = report_sections(doc)
    assert INTERVALS not in keys and not [k for k in report["measures"] if k.endswith(".ci95")]
    assert report == cli(doc, tmp_path)


def project_annotator_names(doc: dict) -> list[str]:
    return list(doc["annotators"])
