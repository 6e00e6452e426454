"""Full reports at a bounded cadence: every computation rewrites the current agreement (section rows and
summary) and leaves a headline row; a full report (`AgreementSnapshot`) is stored after a full
computation, when κ_C becomes final and otherwise at most once per AGREEMENT_REPORT_INTERVAL_SECONDS —
while the dashboard, the API and the exports show the latest computation, not the latest report."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.agreement import current, retention
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.corpus.exports.report import report_document
from annotator.models import AgreementHeadline, AgreementSection, AgreementSnapshot
from tests import make
from tests.make import api_client

pytestmark = pytest.mark.django_db

UPDATES = 8
WRITE = re.compile(r'^\s*(INSERT INTO|UPDATE)\s+"(annotator_agreement\w*)"', re.IGNORECASE)
LABELS = ("paraphrase", "non_paraphrase")


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()


@pytest.fixture
def streaming(settings):
    """A project of 6 pairs labelled by two annotators and a third (full computation done), the
    interval long."""
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    lead = make.user("cad-lead")
    anns = tuple(make.user(f"cad-{k}") for k in range(3))
    project = make.project_with_pairs("Cadence", n_pairs=6, lead=lead, annotators=anns)
    pairs = list(project.pairs.order_by("position"))
    for pair in pairs:
        for who in anns:
            annotation_services.set_pair_label(pair, who, "paraphrase", base_version=None)
    assert recompute(project.pk) == "stored"  # the first report
    return project, lead, anns, pairs


def label(pairs, who, n: int) -> dict[str, int]:
    """Save the `n`-th label of the stream (pair n mod 6, flipping); the labels `who` has given now."""
    annotation_services.set_pair_label(
        pairs[n % len(pairs)], who, LABELS[(n // len(pairs) + 1) % 2], base_version=None
    )
    given = [LABELS[(k // len(pairs) + 1) % 2] for k in range(n + 1)]
    now = {pid: "paraphrase" for pid in range(len(pairs))}
    for k, value in enumerate(given):
        now[k % len(pairs)] = value
    return {v: sum(1 for x in now.values() if x == v) for v in LABELS}


def test_a_stream_of_updates_stores_a_headline_each_and_no_report_within_the_interval(client, streaming):
    project, lead, anns, pairs = streaming
    client.force_login(lead)
    api = api_client(lead)
    panel = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "label-agreement"}
    for n in range(UPDATES):
        counts = label(pairs, anns[2], n)
        assert recompute(project.pk) == "stored"
        now = current.current(project)
        assert now is not None and now.report is None  # no full report of this state
        assert now.results["pair_labels"]["counts"][anns[2].username] == counts
        html = client.get(reverse("annotator:dashboard", args=[project.pk]), **panel).content.decode()
        shown = f"{anns[2].username} {counts['paraphrase']} paraphrase / {counts['non_paraphrase']} not a paraphrase"
        assert shown in html, (n, counts)
        body = api.get(f"/api/projects/{project.pk}/agreement/").json()
        assert body["snapshot"]["computation"] == now.computation and body["snapshot"]["id"] is None
        assert body["snapshot"]["results"]["pair_labels"]["counts"][anns[2].username] == counts
        assert report_document(project)["pair_labels"] == now.results["pair_labels"]
    assert AgreementHeadline.objects.filter(project=project).count() == 1 + UPDATES
    assert AgreementSnapshot.objects.filter(project=project).count() == 1  # the full computation's


def test_the_current_agreement_equals_the_report_a_full_computation_stores(streaming):
    project, _, anns, pairs = streaming
    for n in range(3):
        label(pairs, anns[2], n)
        recompute(project.pk)
    updated = current.current(project)
    assert recompute(project.pk, full=True) == "stored"
    full = AgreementSnapshot.objects.filter(project=project).latest("computed_at", "id")
    assert current.current(project).report == full.pk  # a full computation stores its report
    assert {k: v for k, v in full.results.items() if k != "progress"} == {
        k: v for k, v in updated.results.items() if k != "progress"
    }


def test_a_report_is_stored_once_the_interval_has_passed(streaming):
    project, _, anns, pairs = streaming
    label(pairs, anns[2], 0)
    recompute(project.pk)
    assert AgreementSnapshot.objects.filter(project=project).count() == 1
    AgreementHeadline.objects.update(
        computed_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    )  # an hour ago, and more
    label(pairs, anns[2], 1)
    recompute(project.pk)
    due = current.current(project)
    label(pairs, anns[2], 2)
    recompute(project.pk)  # within the interval of the report just stored
    reports = list(AgreementSnapshot.objects.filter(project=project).order_by("id"))
    assert len(reports) == 2 and due.report == reports[-1].pk
    assert reports[-1].results == due.results
    headlines = list(AgreementHeadline.objects.filter(project=project).order_by("id"))
    assert [h.snapshot_id is not None for h in headlines] == [True, False, True, False]


def _written(project, pairs, who, n: int) -> tuple[int, set[str]]:
    """Bytes of the agreement rows written by the `n`-th update of the stream (SQL of the INSERTs and
    UPDATEs, values inlined) and the tables written."""
    label(pairs, who, n)
    written, tables = 0, set()
    with CaptureQueriesContext(connection) as queries:
        assert recompute(project.pk) == "stored"
    for query in queries.captured_queries:
        match = WRITE.match(query["sql"])
        if match:
            written += len(query["sql"])
            tables.add(match.group(2))
    return written, tables


def stored_bytes(project) -> int:
    """The size of the project's agreement rows (their values as JSON)."""
    size = 0
    for model in (AgreementSnapshot, AgreementHeadline, AgreementSection):
        for row in model.objects.filter(project=project).values():
            size += len(json.dumps(row, default=str))
    return size


def test_storage_grows_by_a_headline_row_per_update_not_by_a_report(streaming):
    project, _, anns, pairs = streaming
    report_size = len(json.dumps(AgreementSnapshot.objects.get(project=project).results))
    headline_size = len(json.dumps(AgreementHeadline.objects.values().get(project=project), default=str))
    before = stored_bytes(project)
    written = [_written(project, pairs, anns[2], n) for n in range(3 * len(pairs))]
    assert all("annotator_agreementsnapshot" not in tables for _, tables in written)
    sizes = [n for n, _ in written]
    assert max(sizes[len(pairs) :]) <= 1.1 * max(sizes[: len(pairs)]), sizes  # no growth with updates
    growth = stored_bytes(project) - before
    assert growth <= 1.2 * len(written) * headline_size < len(written) * report_size, (growth, report_size)


def pin(client, project, computation: int):
    return client.post(
        reverse("annotator:dashboard-pin", args=[project.pk]),
        {"computation": str(computation), "note": "reported in the paper"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="trend",
    )


def test_pinning_the_current_agreement_stores_its_report_and_retention_keeps_it(client, streaming):
    project, lead, anns, pairs = streaming
    label(pairs, anns[2], 0)
    recompute(project.pk)
    now = current.current(project)
    assert now is not None and now.report is None
    client.force_login(lead)
    response = pin(client, project, now.computation)
    assert response.status_code == 200 and "reported in the paper" in response.content.decode()
    pinned = AgreementSnapshot.objects.get(project=project, pinned=True)
    assert pinned.results == now.results and current.current(project).report == pinned.pk
    assert AgreementHeadline.objects.get(pk=now.computation).snapshot_id == pinned.pk
    # older than the latest report, in the same day: only the pin keeps it
    first = AgreementSnapshot.objects.get(project=project, pinned=False)
    AgreementSnapshot.objects.filter(pk=pinned.pk).update(computed_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    AgreementSnapshot.objects.filter(pk=first.pk).update(
        computed_at=dt.datetime(2020, 1, 1, 0, 1, tzinfo=dt.UTC)
    )
    assert retention.apply_retention(project.pk) == 0
    retention.unpin(project, pinned.pk)
    assert retention.apply_retention(project.pk) == 1
    assert list(AgreementSnapshot.objects.filter(project=project).values_list("pk", flat=True)) == [first.pk]


def test_a_past_computation_without_a_report_cannot_be_pinned(client, streaming):
    project, lead, anns, pairs = streaming
    label(pairs, anns[2], 0)
    recompute(project.pk)
    past = current.current(project).computation
    label(pairs, anns[2], 1)
    recompute(project.pk)
    client.force_login(lead)
    response = pin(client, project, past)
    assert response.status_code == 400 and "pin the current one" in response.content.decode()
    assert not AgreementSnapshot.objects.filter(project=project, pinned=True).exists()
