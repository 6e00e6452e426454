"""The statistics panel and the report export's `statistics` section: the papers' tables, each naming
the table it mirrors, equal to `python -m metrics report --statistics` on the exported document."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator.agreement.computation import recompute
from annotator.agreement.statistics import compute_statistics, import_skips, project_statistics
from annotator.annotation import services as annotation_services
from annotator.corpus.exports import report
from annotator.corpus.exports.native import native_document
from annotator.dashboard.paper_tables import cohn_fig4_svg, type_distribution_svg
from annotator.models import AgreementSnapshot, CorpusJob
from metrics.corpus_statistics import corpus_type_frequencies, pearson_between_corpora
from tests import make

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def setup():
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"), make.user("cleo"))
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(project, anns)
    recompute(project.pk)
    return project, lead, anns


def cli_statistics(doc: dict, tmp_path: Path) -> dict:
    path = tmp_path / "project.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", "--statistics", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"},
    )
    return json.loads(out.stdout)["statistics"]


def test_report_export_statistics_equal_the_cli_on_the_exported_document(setup, tmp_path):
    project, _, _ = setup
    compute_statistics(project)  # the task a stored report sends
    exported = json.loads(report.report_json(project))
    assert exported["statistics_state"] == "current"
    stats = exported["statistics"]
    imports = stats.pop("imports")
    assert stats == cli_statistics(native_document(project), tmp_path)
    assert set(stats) == {"vila_table3", "vila_table4", "etpc_types_by_sense", "cohn_fig4"}
    assert all(table["mirrors"] for table in stats.values())
    assert imports["skipped"] == 0
    assert stats["vila_table3"]["by_annotator"]["ana"]["phenomena"] == 8


def test_report_csv_and_print_page_carry_the_statistics(setup):
    project, _, _ = setup
    compute_statistics(project)
    csv = report.report_csv(project).decode()
    assert "statistics,state,,current" in csv
    assert 'statistics.vila_table3,mirrors,,"Vila et al. 2015, Table 3"' in csv
    assert "statistics.cohn_fig4,bins" in csv
    html = report.report_html(project).decode()
    assert "Corpus statistics" in html and "statistics.vila_table4" in html


def test_the_report_export_reads_the_kept_statistics_and_computes_nothing(setup, monkeypatch):
    project, _, anns = setup

    def whole_project(*args, **kwargs):
        raise AssertionError("the export built the project's document")

    monkeypatch.setattr("annotator.agreement.statistics.project_document", whole_project)
    first = json.loads(report.report_json(project))
    assert first["statistics_state"] == "computing" and first["statistics"] == {}
    assert "being computed" in report.report_html(project).decode()
    assert "statistics,state,,computing" in report.report_csv(project).decode()
    monkeypatch.undo()
    compute_statistics(project)  # the worker
    kept = json.loads(report.report_json(project))["statistics"]
    make.mark(project.pairs.order_by("pk").first(), anns[0], "x")  # a newer state of the annotations
    recompute(project.pk)
    monkeypatch.setattr("annotator.agreement.statistics.project_document", whole_project)
    later = json.loads(report.report_json(project))
    assert later["statistics_state"] == "earlier" and later["statistics"] == kept
    assert "an earlier state" in report.report_html(project).decode()


def test_panel_renders_every_table_naming_its_paper_and_both_charts(client, setup, eager_celery):
    project, lead, _ = setup
    compute_statistics(project)  # the task a stored report sends
    client.force_login(lead)
    page = client.get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    assert 'id="statistics"' in page and reverse("annotator:dashboard-statistics", args=[project.pk]) in page
    response = client.get(
        reverse("annotator:dashboard-statistics", args=[project.pk]), HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="card panel" id="statistics"')
    for paper in (
        "mirrors Vila et al. 2015, Table 3",
        "mirrors Vila et al. 2015, Table 4",
        "mirrors Kovatchev et al. (ETPC), types per layer",
        "mirrors Cohn, Callison-Burch &amp; Lapata 2008, Fig. 4",
    ):
        assert paper in html
    assert html.count("<svg") == 2 and "every 2s" not in html
    assert "No record was skipped" in html


def test_panel_without_a_snapshot_says_so(client):
    lead = make.user("lead")
    project = make.project_with_pairs(lead=lead)
    client.force_login(lead)
    html = client.get(reverse("annotator:dashboard-statistics", args=[project.pk])).content.decode()
    assert "No snapshot yet." in html


def test_panel_polls_while_the_worker_computes_and_sends_nothing(client, setup, monkeypatch):
    project, lead, _ = setup
    sent = []
    monkeypatch.setattr("annotator.taskqueue.enqueue", lambda name, *args, **kw: sent.append((name, args)))
    client.force_login(lead)
    html = client.get(reverse("annotator:dashboard-statistics", args=[project.pk])).content.decode()
    assert "Computing the statistics" in html and "every 2s" in html
    assert sent == []  # the stored report sends the task, not the panel
    compute_statistics(project)  # the worker
    html = client.get(reverse("annotator:dashboard-statistics", args=[project.pk])).content.decode()
    assert "mirrors Vila et al. 2015, Table 3" in html and "every 2s" not in html


def test_a_stored_report_sends_the_statistics_with_the_intervals(
    setup, task_queue, django_capture_on_commit_callbacks
):
    project, _, anns = setup
    annotation_services.set_pair_label(project.pairs.first(), anns[0], "non_paraphrase", base_version=None)
    task_queue.sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        recompute(project.pk, full=True)  # stores its full report, κ_C final
    assert ("annotator.compute_statistics", (project.pk,)) in task_queue.sent
    assert any(
        name == "annotator.compute_agreement_intervals" and args[0] == project.pk
        for name, args in task_queue.sent
    )


def test_skipped_records_are_counted_once_and_grouped_by_reason(setup):
    project, _, _ = setup
    skipped = [
        {
            "file": "textual_np_pos.xml",
            "line": 7,
            "field": "s1_scope",
            "message": "pair 12: token 40 is out of range",
        },
        {"file": "textual_np_pos.xml", "line": 9, "field": "type_id", "message": "pair 3: unknown type 99"},
        {"file": "textual_np_neg.xml", "line": 2, "field": "type_id", "message": "pair 8: unknown type 99"},
    ]
    for _ in range(2):  # the same file imported twice skips the same records
        CorpusJob.objects.create(
            kind="import", format="etpc", project=project, status="succeeded", report={"skipped": skipped}
        )
    CorpusJob.objects.create(
        kind="import",
        format="etpc",
        project=project,
        status="succeeded",
        report={"dry_run": True, "skipped": skipped * 2},
    )
    skips = import_skips(project)
    assert skips["skipped"] == 3
    assert skips["reasons"][0] == {
        "field": "type_id",
        "reason": "unknown type 99",
        "count": 2,
        "first": "textual_np_pos.xml:9",
    }
    assert project_statistics(project)["imports"]["skipped"] == 3


def test_charts_say_when_there_is_nothing_to_draw():
    assert "No phenomena yet." in type_distribution_svg({"by_type": {"A": {"x": {"count": 0}}}})
    empty_bin = {
        "shorter_length": [1, 5],
        "pi_hat": {"value": None},
        "pi0": {"value": None},
        "kappa_c": {"value": None},
    }
    assert "No word alignments yet." in cohn_fig4_svg({"bins": [empty_bin]})


def test_statistics_of_older_annotations_are_shown_as_such(client, setup, eager_celery):
    project, lead, anns = setup
    compute_statistics(project)
    annotation_services.set_pair_label(project.pairs.first(), anns[0], "non_paraphrase", base_version=None)
    AgreementSnapshot.objects.filter(project=project).delete()  # the cadence stores no report now
    recompute(project.pk)
    client.force_login(lead)
    html = client.get(reverse("annotator:dashboard-statistics", args=[project.pk])).content.decode()
    assert "mirrors Vila et al. 2015, Table 3" in html
    assert "Of the annotations of the latest stored report" in html


def test_lead_correlates_type_frequencies_with_another_project_as_vila_does(client, setup, eager_celery):
    project, lead, anns = setup
    other = make.project_with_pairs("Other", n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(other, anns)
    recompute(other.pk)
    stranger = make.project_with_pairs("Not led", lead=make.user("someone"))
    compute_statistics(project)
    client.force_login(lead)
    url = reverse("annotator:dashboard-statistics", args=[project.pk])
    first = client.get(url, {"compare": [other.pk]}).content.decode()
    assert "its statistics are not computed yet" in first  # a stored report of it sends them
    assert f'value="{stranger.pk}"' not in first  # only projects the lead leads are offered
    compute_statistics(other)
    html = client.get(url, {"compare": [other.pk, stranger.pk]}).content.decode()
    mine = corpus_type_frequencies(project_statistics(project)["vila_table4"])
    theirs = corpus_type_frequencies(project_statistics(other)["vila_table4"])
    expected = pearson_between_corpora(mine, theirs)
    assert expected["r"] is not None
    assert (
        f'<td>Other</td><td class="num">{expected["r"]:.3f}</td><td class="num">{expected["types"]}</td>'
        in html
    )
    assert "Not led" not in html
