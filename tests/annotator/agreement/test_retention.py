"""Bounded storage: headline rows for every computation, the retention policy of full reports, pins."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator import taskqueue
from annotator.agreement import current, retention
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.dashboard import tables
from annotator.models import AgreementHeadline, AgreementSnapshot, ReannotationRound
from tests import make

NOW = dt.datetime(2026, 11, 25, 12, 30, tzinfo=dt.UTC)


def ago(**kwargs: float) -> dt.datetime:
    return NOW - dt.timedelta(**kwargs)


# ---- the policy (pure) -------------------------------------------------------------------------------


def test_keeps_everything_of_the_last_hour():
    rows = [(n, ago(minutes=n), False) for n in range(0, 60)]
    assert retention.reports_to_keep(rows, NOW) == {n for n in range(60)}


def test_keeps_the_newest_of_each_hour_for_a_week():
    # 12:30 now; reports at 10:50, 10:20, 10:05 (hour 10) and 09:40 (hour 9), all older than an hour
    rows = [(1, ago(minutes=100), False), (2, ago(minutes=130), False), (3, ago(minutes=145), False)]
    rows.append((4, ago(minutes=170), False))
    assert retention.reports_to_keep(rows, NOW) == {1, 4}


def test_keeps_the_newest_of_each_day_after_a_week():
    day = NOW - dt.timedelta(days=10)
    morning, evening = day.replace(hour=8), day.replace(hour=20)
    rows = [(1, ago(minutes=5), False), (2, morning, False), (3, evening, False)]
    rows.append((4, (day - dt.timedelta(days=1)).replace(hour=23), False))
    assert retention.reports_to_keep(rows, NOW) == {1, 3, 4}


def test_latest_and_pinned_are_always_kept():
    rows = [(1, ago(days=40), False), (2, ago(days=30, hours=1), False), (3, ago(days=30), False)]
    assert retention.reports_to_keep(rows, NOW) == {1, 3}  # 2 shares the day of 3, the newer
    same_day = [(1, ago(days=30, hours=3), True), (2, ago(days=30, hours=2), False)]
    same_day.append((3, ago(days=30, hours=1), False))
    assert retention.reports_to_keep(same_day, NOW) == {1, 3}  # 1 pinned, 3 newest of the day
    only_old = [(7, ago(days=400), False)]
    assert retention.reports_to_keep(only_old, NOW) == {7}
    assert retention.reports_to_keep([], NOW) == set()


def test_windows_come_from_the_arguments():
    rows = [(1, ago(minutes=1), False), (2, ago(minutes=2), False), (3, ago(minutes=3), False)]
    kept = retention.reports_to_keep(rows, NOW, keep_all=dt.timedelta(0), hourly_for=dt.timedelta(0))
    assert kept == {1}  # one UTC day, and the latest


# ---- the task over the database ------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def team():
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"))
    project = make.project_with_pairs(n_pairs=3, lead=lead, annotators=anns)
    return project, lead, anns


def store_at(project, when: dt.datetime, **fields) -> AgreementSnapshot:
    snapshot = AgreementSnapshot.objects.create(project=project, fingerprint="x" * 64, results={}, **fields)
    AgreementSnapshot.objects.filter(pk=snapshot.pk).update(computed_at=when)
    return snapshot


@pytest.mark.django_db
def test_every_computation_leaves_a_headline_row_and_the_trend_reads_them(team):
    project, _, (ana, bo) = team
    pair = project.pairs.first()
    annotation_services.set_pair_label(pair, ana, "paraphrase", base_version=None)
    annotation_services.set_pair_label(pair, bo, "paraphrase", base_version=None)
    recompute(project.pk)
    annotation_services.set_pair_label(pair, bo, "non_paraphrase", base_version=None)
    recompute(project.pk)
    rows = list(AgreementHeadline.objects.filter(project=project).order_by("computed_at", "id"))
    (first,) = AgreementSnapshot.objects.filter(project=project)  # the update's report is not due yet
    assert [r.snapshot_id for r in rows] == [first.pk, None]
    assert rows[0].values == first.results["headline"]
    assert rows[1].values == current.current(project).results["headline"] != rows[0].values
    AgreementSnapshot.objects.filter(project=project).delete()  # reports pruned: the trend stays
    assert AgreementHeadline.objects.filter(project=project).count() == 2
    svg = str(tables.trend(project.pk))
    assert "<circle" in svg and "Label Fleiss κ" in svg  # points from the headline rows alone


@pytest.mark.django_db
def test_task_prunes_by_the_policy_and_keeps_latest_pinned_and_other_scopes(team, settings, eager_celery):
    project, _, _ = team
    other = make.project_with_pairs("Q", n_pairs=1, lead=make.user("lead2"))
    now = dt.datetime.now(dt.UTC)
    recent = store_at(project, now - dt.timedelta(minutes=10))
    same_hour_old = store_at(project, (now - dt.timedelta(hours=5)).replace(minute=10))
    same_hour_new = store_at(project, (now - dt.timedelta(hours=5)).replace(minute=40))
    noon = (now - dt.timedelta(days=20)).replace(hour=12, minute=0)  # one UTC day whatever the hour now
    pinned = store_at(project, noon - dt.timedelta(hours=1), pinned=True, pin_note="paper")
    same_day = store_at(project, noon)
    older_same_day = store_at(project, noon - dt.timedelta(minutes=5))
    before = store_at(project, now - dt.timedelta(days=60), scope="before-reannotation-1")
    lone = store_at(other, now - dt.timedelta(days=90))  # the other project's latest
    taskqueue.enqueue("annotator.apply_agreement_retention")
    left = set(AgreementSnapshot.objects.values_list("pk", flat=True))
    assert left == {recent.pk, same_hour_new.pk, pinned.pk, same_day.pk, before.pk, lone.pk}
    assert same_hour_old.pk not in left and older_same_day.pk not in left
    assert retention.apply_retention() == 0  # idempotent


@pytest.mark.django_db
def test_latest_is_kept_even_when_old_and_a_reannotation_reference_survives(team):
    project, _, _ = team
    old = store_at(project, dt.datetime.now(dt.UTC) - dt.timedelta(days=30))
    assert retention.apply_retention(project.pk) == 0
    assert AgreementSnapshot.objects.filter(pk=old.pk).exists()
    assert not ReannotationRound.objects.exists()


@pytest.mark.django_db
def test_in_process_mode_prunes_when_a_computation_stores_a_full_report(team, settings, eager_celery):
    project, _, (ana, bo) = team
    settings.AGREEMENT_RETENTION_ALL_SECONDS = 0
    settings.AGREEMENT_RETENTION_HOURLY_DAYS = 0
    old = [store_at(project, dt.datetime.now(dt.UTC) - dt.timedelta(days=3, minutes=n)) for n in (1, 2)]
    annotation_services.set_pair_label(project.pairs.first(), ana, "paraphrase", base_version=None)
    recompute(project.pk)  # stores a full report (the first of the stream), then prunes
    assert not AgreementSnapshot.objects.filter(pk=old[1].pk).exists()
    assert AgreementSnapshot.objects.filter(pk=old[0].pk).exists()  # newest of its day


@pytest.mark.django_db
def test_lead_pins_and_unpins_the_latest_report_from_the_dashboard(client, team):
    project, lead, (ana, _) = team
    annotation_services.set_pair_label(project.pairs.first(), ana, "paraphrase", base_version=None)
    recompute(project.pk)
    latest = AgreementSnapshot.objects.get(project=project)
    client.force_login(lead)
    page = client.get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    computation = AgreementHeadline.objects.get(project=project).pk
    assert "Pin the current report" in page and f'name="computation" value="{computation}"' in page
    url = reverse("annotator:dashboard-pin", args=[project.pk])
    response = client.post(
        url, {"computation": computation, "note": "reported in the paper"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert "reported in the paper" in response.content.decode()
    latest.refresh_from_db()
    assert latest.pinned and latest.pin_note == "reported in the paper"
    client.post(url, {"snapshot": latest.pk, "action": "unpin"}, HTTP_HX_REQUEST="true")
    latest.refresh_from_db()
    assert not latest.pinned


@pytest.mark.django_db
def test_pin_of_an_unknown_report_says_so_and_annotators_cannot_pin(client, team):
    project, lead, (ana, _) = team
    client.force_login(lead)
    url = reverse("annotator:dashboard-pin", args=[project.pk])
    response = client.post(url, {"snapshot": 999999, "note": "x"})
    assert response.status_code == 400
    assert "is not one of this project" in response.content.decode()
    assert client.post(url, {"note": "x"}).status_code == 400
    client.force_login(ana)
    assert client.post(url, {"snapshot": 1, "note": "x"}).status_code == 403


@pytest.mark.django_db
def test_the_application_issues_no_vacuum_and_autovacuum_is_tuned_per_table():
    """No VACUUM statement in the application: the agreement tables rewritten often carry autovacuum
    thresholds of their own (migration 0035, PostgreSQL)."""
    import importlib
    import re
    from pathlib import Path

    from django.db import connection

    root = Path(retention.__file__).resolve().parents[1]
    issued = [
        path
        for path in root.rglob("*.py")
        if "migrations" not in path.parts and re.search(r"[\"'f]VACUUM\b", path.read_text())
    ]
    assert issued == []
    tuned = importlib.import_module("annotator.migrations.0035_agreement_autovacuum").TABLES
    dropped = {"annotator_agreementpairstate", "annotator_agreementchange"}  # by migration 0038
    tuned = {name: value for name, value in tuned.items() if name not in dropped}
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)", [list(tuned)])
        options = dict(cursor.fetchall())
    assert set(options) == set(tuned)
    for name, (threshold, _) in tuned.items():
        assert "autovacuum_vacuum_scale_factor=0.0" in options[name], name
        assert f"autovacuum_vacuum_threshold={threshold}" in options[name], name
