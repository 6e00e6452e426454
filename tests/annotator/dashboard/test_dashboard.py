"""The lead's agreement dashboard: who may see it, what it shows, htmx panels, constant queries."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator.agreement.computation import latest_snapshot, recompute
from annotator.models import AgreementHeadline, AgreementState
from tests import make

pytestmark = pytest.mark.django_db
PANELS = [
    "progress",
    "phenomena-agreement",
    "alignment-agreement",
    "label-agreement",
    "evaluation",
    "trend",
    "heatmap",
]


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()


@pytest.fixture
def setup():
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    return project, lead, anns


def url(project) -> str:
    return reverse("annotator:dashboard", args=[project.pk])


def login(client, user) -> None:
    client.force_login(user)


def test_lead_sees_the_dashboard(client, setup):
    project, lead, _ = setup
    login(client, lead)
    response = client.get(url(project))
    assert response.status_code == 200
    assert b"Agreement dashboard" in response.content


def test_annotator_gets_403_and_never_sees_numbers(client, setup):
    project, _, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, anns[0])
    response = client.get(url(project))
    assert response.status_code == 403
    assert b"DO F1" not in response.content
    response = client.get(url(project), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="phenomena-agreement")
    assert response.status_code == 403


def test_outsider_gets_404(client, setup):
    project, _, _ = setup
    login(client, make.cast().outsider)
    assert client.get(url(project)).status_code == 404


def test_lead_of_another_project_gets_404(client, setup):
    project, _, _ = setup
    other_lead = make.cast().other_lead
    make.project_with_pairs("Other", lead=other_lead)
    login(client, other_lead)
    assert client.get(url(project)).status_code == 404


def test_admin_sees_the_dashboard(client, setup):
    project, _, _ = setup
    login(client, make.cast().admin)
    assert client.get(url(project)).status_code == 200


def test_anonymous_is_redirected_to_login(client, setup):
    project, _, _ = setup
    response = client.get(url(project))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_dashboard_shows_numbers_of_the_latest_snapshot(client, setup):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    measures = latest_snapshot(project).results["report"]["measures"]
    login(client, lead)
    html = client.get(url(project)).content.decode()
    assert f"{measures['iapta.do.f1']['value']:.3f}" in html
    assert f"{measures['alignment.words.f1']['value']:.3f}" in html
    assert f"{measures['kappa_c']['value']:.3f}" in html
    assert "anna – ben" in html and "ETPC Table 5.4" in html and "Fleiss' κ" in html
    assert "<svg" in html and "<title>DO F1:" in html  # trend with tooltips


def test_page_without_snapshot_says_so(client, setup):
    project, lead, _ = setup
    login(client, lead)
    html = client.get(url(project)).content.decode()
    assert "No snapshot yet" in html


@pytest.mark.parametrize("panel", PANELS)
def test_htmx_request_gets_only_its_panel(client, setup, panel):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, lead)
    response = client.get(url(project), HTTP_HX_REQUEST="true", HTTP_HX_TARGET=panel)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith("<section") and f'id="{panel}"' in html
    # reloaded on snapshot-updated (and every 3 s while the figures' intervals are updating)
    assert "<html" not in html and 'snapshot-updated from:body"' in html


def test_status_poll_triggers_snapshot_updated_only_for_a_newer_snapshot(client, setup):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    computation = AgreementHeadline.objects.get(project=project).pk  # the latest computation
    login(client, lead)
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "snapshot-status"}
    stale = client.get(url(project), {"seen": ""}, **headers)
    assert stale["HX-Trigger"] == '{"snapshot-updated": {}}' or "snapshot-updated" in stale["HX-Trigger"]
    current = client.get(url(project), {"seen": str(computation)}, **headers)
    assert "HX-Trigger" not in current
    assert f'"seen": "{computation}"' in current.content.decode()


def test_status_says_recomputing_while_a_change_is_pending(client, setup):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    from django.utils import timezone

    AgreementState.objects.filter(project=project).update(changed_at=timezone.now())
    login(client, lead)
    html = client.get(url(project), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="snapshot-status").content.decode()
    assert "recomputing…" in html and "Last snapshot" in html


def test_status_says_dashboards_are_behind_when_enqueue_failed(client, setup):
    project, lead, _ = setup
    AgreementState.objects.create(project=project, enqueue_failed=True, last_error="")
    login(client, lead)
    html = client.get(url(project)).content.decode()
    assert "Dashboards are behind" in html


def test_status_shows_the_last_error(client, setup):
    project, lead, _ = setup
    AgreementState.objects.create(project=project, last_error="KeyError: 'tokens1'")
    login(client, lead)
    assert "The last recompute failed" in client.get(url(project)).content.decode()


def test_page_query_count_does_not_grow_with_snapshots_or_annotators(
    client, setup, django_assert_max_num_queries
):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, lead)
    client.get(url(project))  # warm-up (session, content types)
    # 13: the pinned reports listed by the trend panel, the recommender's current run, the agreement sums
    with django_assert_max_num_queries(13) as few:
        client.get(url(project))
    baseline = len(few.captured_queries)
    more = make.user("dora")
    from annotator.corpus import projects

    projects.assign_pairs(project, [more], project.pairs.all())
    pair = project.pairs.first()
    from annotator.annotation import services as annotation_services

    annotation_services.set_pair_label(pair, more, "paraphrase", base_version=None)
    recompute(project.pk)
    with django_assert_max_num_queries(baseline):
        client.get(url(project))


def test_status_poll_is_a_few_queries(client, setup, django_assert_max_num_queries):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, lead)
    client.get(url(project))
    with django_assert_max_num_queries(7):
        client.get(url(project), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="snapshot-status")


def test_per_type_breakdown_lists_lowest_first(client, setup):
    project, lead, anns = setup
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, lead)
    html = client.get(
        url(project), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="phenomena-agreement"
    ).content.decode()
    by_type = html[html.index("By type") :]
    assert by_type.index("Diathesis") < by_type.index("Synthetic/analytic")


def test_project_with_evaluation_layer_keeps_its_progress_panel(client, setup):
    project, lead, anns = setup
    project.layer_evaluation = True
    project.save()
    make.partly_agree(project, anns)
    recompute(project.pk)
    login(client, lead)
    response = client.get(url(project))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="progress"' in html and "anna" in html[html.index('id="progress"') :]
