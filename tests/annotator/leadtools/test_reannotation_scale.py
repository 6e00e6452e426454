"""The re-annotation page's preview costs the same per request for 500 pairs as for 6,000 (issue 17),
and it is the draw the queued round makes: the same seed gives the same pairs in the same order."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.leadtools import disagreement, explorer_rows, reannotation
from annotator.models import ExplorerValue, ReannotationRound
from tests import make
from tests.lists_scale import big_project, request_cost

pytestmark = pytest.mark.django_db

RULES = [
    ("label_disagreement", {}),
    ("do_f1_below", {"threshold": 0.3}),
    ("selected", {"pairs": ["b7", "b10", "b100", "b2", "b33"]}),
]


def _stored_rows(project) -> dict:
    """The rows `draw` takes, made from the stored ones (what `pair_agreement` gave them from)."""
    rows = {}
    for source_id, labels, do_f1 in ExplorerValue.objects.filter(
        project=project, annotators="", ptype=""
    ).values_list("pair__source_id", "labels", "do_f1"):
        rows[source_id] = {
            "annotators": ["anna", "ben"],
            "labels": {} if labels is None else {"anna": "p", "ben": "p" if labels else "n"},
            "label_disagreement": labels == 0.0,
            "score": do_f1,
        }
    return rows


def _whole_order(preview: reannotation.DrawPreview) -> list[str]:
    return [pid for start in range(0, preview.count(), 70) for pid in preview[start : start + 70]]


@pytest.mark.parametrize(("rule", "params"), RULES)
def test_the_preview_is_the_draw_of_the_queued_round(rule, params):
    project = big_project(400)
    rows = _stored_rows(project)
    for seed in (0, 1, 17, 2**31 - 1):
        preview = reannotation.preview_draw(project, rule, params, seed=seed)
        drawn = reannotation.draw(rows, rule, params, seed=seed)
        assert preview.current is True
        assert (preview.n_flagged, preview.n_agreeing) == (len(drawn.flagged), len(drawn.agreeing))
        assert preview.n_sampled == len(drawn.sampled) > 0
        assert _whole_order(preview) == drawn.order  # source ids ordered as strings: b10 before b2


@pytest.mark.parametrize(
    ("rule", "params"),
    [*RULES[:2], ("do_f1_below", {"threshold": 0.9}), ("selected", {"pairs": ["p2", "p5"]})],
)
def test_the_preview_on_a_real_project_is_what_the_task_queues(rule, params):
    world = make.team(n_pairs=6)
    project = world["project"]
    explorer_rows.refresh(project)
    _, rows = disagreement.project_rows(project)
    for seed in range(6):
        preview = reannotation.preview_draw(project, rule, params, seed=seed)
        assert _whole_order(preview) == reannotation.draw(rows, rule, params, seed=seed).order
    round_ = reannotation.queue_reannotation(project, rule, params, seed=5)
    assert round_.order == _whole_order(reannotation.preview_draw(project, rule, params, seed=5))


def test_the_re_annotation_page_costs_the_same_for_a_small_and_a_large_project():
    client = make.logged_in(make.cast().lead)
    costs = {}
    for n, name in ((500, "Small"), (6000, "Large")):
        project = big_project(n, name)
        url = reverse("annotator:reannotation", args=[project.pk])
        pages = {
            "page": url,
            "label rule, page 2": url + "?rule=label_disagreement&seed=3&page=2",
            "DO F1 rule, page 2": url + "?rule=do_f1_below&threshold=0.5&seed=3&page=2",
            "selected pairs": url + "?rule=selected&seed=3&pick=b2&pick=b3",
            "DO F1 rule, another seed": url + "?rule=do_f1_below&threshold=0.5&seed=4",
        }
        for label, page in pages.items():
            costs.setdefault(label, []).append(request_cost(client, page))
        body = client.get(pages["label rule, page 2"]).content.decode()
        flagged = n // 2
        assert f"<strong>{flagged}</strong> pairs meet the rule" in body
        assert f"Pairs 101–200 of {flagged + round(flagged / 10)}" in body
    for label, (small, large) in costs.items():
        assert small[:2] == large[:2], (label, small[:2], large[:2], large[2])
        assert large[1] < 250, (label, large[:2])  # a page of 100 pairs: their ranks, then their names


def test_a_round_of_every_pair_costs_the_same_on_the_page_and_in_the_api():
    client = make.logged_in(make.cast().lead)
    costs = []
    for n, name in ((500, "Small"), (6000, "Large")):
        project = big_project(n, name)
        every = [f"b{i}" for i in range(1, n + 1)]
        ReannotationRound.objects.create(
            project=project, round=2, rule="selected", seed=2, flagged=every, order=every, fingerprint="all"
        )
        page = reverse("annotator:reannotation", args=[project.pk])
        api = reverse("api-reannotation-list", kwargs={"project_pk": project.pk})
        costs.append((request_cost(client, page), request_cost(client, api)))
        compare = client.get(api).json()["results"][0]["compare"]["pairs"]
        assert compare["n"] == n and compare["labels_after"] == n // 2  # even positions' labels differ
        assert 'id="round-2"' in client.get(page).content.decode()
    for (small, large), label in zip(zip(*costs, strict=True), ("page", "API"), strict=True):
        assert small[:2] == large[:2], (label, small[:2], large[:2], large[2])


@pytest.mark.usefixtures("eager_celery")  # the preview reads the explorer's rows, built by a task
def test_a_rule_that_flags_nothing_previews_an_empty_queue(client):
    lead = make.cast().lead
    project = make.project_with_pairs("Nothing yet", n_pairs=3, lead=lead)  # nobody has annotated
    client.force_login(lead)
    url = reverse("annotator:reannotation", args=[project.pk])
    body = client.get(url, {"rule": "do_f1_below", "threshold": "0.5", "seed": "1"}).content.decode()
    assert "<strong>0</strong> pairs meet the rule" in body and "Fix the highlighted options" not in body
