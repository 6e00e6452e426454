"""Re-annotation: rules, the agreeing sample, queuing rounds (idempotent), before/after, the page."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.leadtools import disagreement, explorer_rows, reannotation
from annotator.models import (
    AgreementSnapshot,
    AlignmentLink,
    AnnotationHistory,
    Assignment,
    Phenomenon,
    ReannotationRound,
)
from annotator.tasks import queue_reannotation as queue_task
from metrics.reeval import sample_size
from tests import make


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(make.team, n_pairs=6)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def rows_for(n_flagged: int, n_agreeing: int) -> dict:
    rows = {}
    for n in range(n_flagged + n_agreeing):
        flagged = n < n_flagged
        rows[f"q{n:03d}"] = {
            "annotators": ["a", "b"],
            "labels": {"a": "paraphrase", "b": "non_paraphrase" if flagged else "paraphrase"},
            "label_disagreement": flagged,
            "score": 0.2 if flagged else 0.9,
            "do_f1": {"a|b": 0.2 if flagged else 0.9},
            "alignment_f1": {},
        }
    return rows


# ---- the draw ------------------------------------------------------------------------------------


def test_label_rule_flags_pairs_whose_labels_differ(world):
    _, rows = disagreement.project_rows(world["project"])
    draw = reannotation.draw(rows, "label_disagreement", {}, seed=1)
    assert draw.flagged == ["p2"] and "p2" not in draw.agreeing and len(draw.agreeing) == 5


def test_do_f1_rule_flags_pairs_below_the_threshold(world):
    _, rows = disagreement.project_rows(world["project"])
    draw = reannotation.draw(rows, "do_f1_below", {"threshold": 0.5}, seed=1)
    assert sorted(draw.flagged) == ["p2", "p3"]
    # each side listed by DO F1, then source id (the order the explorer's rows store as ranks)
    assert rows["p3"]["score"] < rows["p2"]["score"] and draw.flagged == ["p3", "p2"]
    scores = [(rows[pid]["score"], pid) for pid in draw.agreeing]
    assert scores == sorted(scores) and all(score >= 0.5 for score, _ in scores)


def _random_rows(seed: int) -> dict:
    """Pairs with one to three annotators, tied DO F1 values, missing labels and scores."""
    import random

    rng = random.Random(seed)
    rows = {}
    for n in range(80):
        who = ["a", "b", "c"][: rng.choice([1, 2, 2, 3])]
        labels = {a: rng.choice(["p", "n"]) for a in who if rng.random() < 0.8}
        score = rng.choice([None, 0.0, 0.25, 0.5, 0.5, 1.0]) if len(who) > 1 else None
        rows[rng.choice(["b", "B", "é", "a1", "a10"]) + str(n)] = {
            "annotators": who,
            "labels": labels,
            "label_disagreement": len(set(labels.values())) > 1,
            "score": score,
            "do_f1": {} if score is None else {"a|b": score},
        }
    return rows


@pytest.mark.parametrize("seed", range(5))
def test_the_stored_draw_ranks_list_each_side_in_the_draws_order(seed):
    """What the explorer's rows store for the page's preview (`DrawRanks`) is the order `draw` lists
    the flagged and the agreeing pairs in: for the labels, any DO F1 threshold and any selection."""
    rows = _random_rows(seed)
    ranks = explorer_rows.DrawRanks.of(rows)

    def listed(by_rank: dict) -> list:
        return sorted(by_rank, key=by_rank.__getitem__)

    draw = reannotation.draw(rows, "label_disagreement", {}, seed=seed)
    differ = ranks.n_labels_differ
    assert (draw.flagged, draw.agreeing) == (listed(ranks.labels)[:differ], listed(ranks.labels)[differ:])
    for threshold in (0.1, 0.25, 0.5, 0.75, 1.0):
        draw = reannotation.draw(rows, "do_f1_below", {"threshold": threshold}, seed=seed)
        scored = listed(ranks.do_f1)
        below = sum(rows[pid]["score"] < threshold for pid in scored)
        assert (draw.flagged, draw.agreeing) == (scored[:below], scored[below:])
    picked = sorted(rows)[::7]
    draw = reannotation.draw(rows, "selected", {"pairs": picked}, seed=seed)
    assert draw.flagged == sorted(picked)
    assert draw.agreeing == [pid for pid in listed(ranks.compared) if pid not in picked]
    assert listed(ranks.source) == sorted(rows)


def test_selected_rule_takes_the_pairs_given_and_refuses_unknown_ones(world):
    _, rows = disagreement.project_rows(world["project"])
    assert reannotation.draw(rows, "selected", {"pairs": ["p5", "p1"]}, seed=1).flagged == ["p1", "p5"]
    with pytest.raises(ValidationError) as err:
        reannotation.draw(rows, "selected", {"pairs": ["nope"]}, seed=1)
    assert "'nope' is not in this project" in err.value.message_dict["pairs"][0]


def test_threshold_must_be_a_number_in_range():
    with pytest.raises(ValidationError) as err:
        reannotation.clean_params("do_f1_below", {"threshold": "x"})
    assert "threshold" in err.value.message_dict
    with pytest.raises(ValidationError):
        reannotation.clean_params("do_f1_below", {"threshold": 1.5})


@pytest.mark.parametrize(("n_flagged", "expected"), [(25, 3), (15, 2), (14, 1), (4, 0), (5, 1)])
def test_ten_percent_of_agreeing_pairs_rounded_half_up(n_flagged, expected):
    draw = reannotation.draw(rows_for(n_flagged, 100), "label_disagreement", {}, seed=9)
    assert len(draw.sampled) == expected == sample_size(n_flagged, 100, fraction=0.1)
    assert set(draw.sampled) <= set(draw.agreeing)
    assert sorted(draw.order) == sorted(draw.flagged + draw.sampled)


def test_the_draw_is_seeded_and_shuffled():
    rows = rows_for(40, 200)
    first = reannotation.draw(rows, "label_disagreement", {}, seed=5)
    assert first == reannotation.draw(rows, "label_disagreement", {}, seed=5)
    other = reannotation.draw(rows, "label_disagreement", {}, seed=6)
    assert other.sampled != first.sampled or other.order != first.order
    assert first.order != sorted(first.order)  # shuffled, flagged not all in front


# ---- queuing ------------------------------------------------------------------------------------


def test_queue_sends_pairs_back_to_their_annotators_in_a_new_round(world):
    project = world["project"]
    round_ = reannotation.queue_reannotation(project, "label_disagreement", {}, seed=3, actor=world["lead"])
    assert round_.round == 1 and round_.flagged == ["p2"]
    assert len(round_.sampled) == 0  # 10 % of 1 rounds to 0
    rows = Assignment.objects.filter(project=project, round=1)
    assert sorted(rows.values_list("annotator__username", flat=True)) == ["anna", "ben", "cat"]
    assert set(rows.values_list("status", flat=True)) == {"todo"}
    assert Assignment.objects.filter(project=project, round=0).count() == 18  # earlier rounds kept


def test_queue_keeps_every_annotation_and_its_history(world):
    counts = (Phenomenon.objects.count(), AlignmentLink.objects.count(), AnnotationHistory.objects.count())
    reannotation.queue_reannotation(world["project"], "do_f1_below", {"threshold": 0.9}, seed=3)
    assert (
        Phenomenon.objects.count(),
        AlignmentLink.objects.count(),
        AnnotationHistory.objects.count(),
    ) == counts


def test_queue_is_idempotent_on_unchanged_annotations(world):
    first = reannotation.queue_reannotation(world["project"], "label_disagreement", {}, seed=3)
    again = reannotation.queue_reannotation(world["project"], "label_disagreement", {}, seed=3)
    assert again.pk == first.pk and ReannotationRound.objects.count() == 1
    assert Assignment.objects.filter(round=1).count() == 3


def test_next_round_after_a_change_gets_the_next_number(world):
    reannotation.queue_reannotation(world["project"], "label_disagreement", {}, seed=3)
    pair = world["project"].pairs.get(source_id="p2")
    annotation_services.set_pair_label(pair, world["ben"], "paraphrase", base_version=None)
    second = reannotation.queue_reannotation(world["project"], "do_f1_below", {"threshold": 0.5}, seed=3)
    assert second.round == 2 and second.flagged == ["p3", "p2"]  # by DO F1, then source id


def test_queue_copies_the_latest_snapshot_as_agreement_before(world):
    recompute(world["project"].pk)
    latest = AgreementSnapshot.objects.get(project=world["project"], scope="project")
    round_ = reannotation.queue_reannotation(world["project"], "do_f1_below", {"threshold": 0.5}, seed=3)
    snapshot = round_.before_snapshot
    assert snapshot.scope == "before-reannotation-1"
    assert snapshot.results == latest.results and snapshot.fingerprint == latest.fingerprint
    assert round_.before["p2"]["label_disagreement"] is True


def test_without_a_current_snapshot_the_report_before_is_computed(world):
    round_ = reannotation.queue_reannotation(world["project"], "do_f1_below", {"threshold": 0.5}, seed=3)
    measures = round_.before_snapshot.results["report"]["measures"]
    assert 0 < measures["iapta.do.f1"]["value"] < 1


def test_before_and_after_follow_the_revisions(world):
    project = world["project"]
    round_ = reannotation.queue_reannotation(project, "label_disagreement", {}, seed=3)
    pair = project.pairs.get(source_id="p2")
    annotation_services.set_pair_label(pair, world["ben"], "paraphrase", base_version=None)
    t = make.types(project)
    annotation_services.add_phenomenon(
        pair, world["ben"], t["Same polarity"], scope1=[2], scope2=[1], projection="local", base_version=None
    )
    recompute(project.pk)  # what the worker does after the saves commit
    _, rows = disagreement.project_rows(project)
    compare = reannotation.before_after(round_, rows)
    assert compare["pairs"]["labels_before"] == 1 and compare["pairs"]["labels_after"] == 0
    assert compare["pairs"]["flagged_score_before"] < compare["pairs"]["flagged_score_after"] == 1.0
    do = next(h for h in compare["headlines"] if h["label"] == "Phenomena DO F1")
    assert do["before"] < do["after"]


def test_task_runs_the_service_and_skips_a_deleted_project(world):
    number = queue_task.apply(args=[world["project"].pk, "label_disagreement", {}, 4]).get()
    assert number == 1 and ReannotationRound.objects.get().seed == 4
    assert queue_task.apply(args=[999999, "label_disagreement", {}, 4]).get() is None


# ---- the page ---------------------------------------------------------------------------------------


def url(project):
    return reverse("annotator:reannotation", args=[project.pk])


def test_role_matrix(client, world):
    project = world["project"]
    assert client.get(url(project)).status_code == 302
    client.force_login(world["anna"])
    assert client.get(url(project)).status_code == 403
    assert client.post(url(project), {"rule": "label_disagreement", "seed": 1}).status_code == 403
    client.force_login(world["other_lead"])
    assert client.get(url(project)).status_code == 404
    client.force_login(world["lead"])
    assert client.get(url(project)).status_code == 200
    client.force_login(world["admin"])
    assert client.get(url(project)).status_code == 200
    assert ReannotationRound.objects.count() == 0


@pytest.mark.usefixtures("eager_celery")  # the preview reads the explorer's rows, built by a task
def test_htmx_preview_shows_what_the_rule_sends_back(client, world):
    client.force_login(world["lead"])
    response = client.get(
        url(world["project"]),
        {"rule": "do_f1_below", "threshold": "0.5", "seed": "2"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="reannotation-preview",
    )
    body = response.content.decode()
    assert body.lstrip().startswith('<section class="card" id="reannotation-preview"')
    assert "<strong>2</strong> pairs meet the rule" in body
    assert ReannotationRound.objects.count() == 0


def test_post_queues_the_round_through_the_task_and_shows_before_after(client, world):
    client.force_login(world["lead"])
    with make.eager_tasks():
        response = client.post(
            url(world["project"]), {"rule": "label_disagreement", "seed": "8"}, follow=True
        )
    body = response.content.decode()
    assert "Queued 1 pair for re-annotation" in body and 'id="round-1"' in body
    assert "Mean DO F1 of the flagged pairs" in body
    round_ = ReannotationRound.objects.get()
    assert round_.created_by == world["lead"] and round_.seed == 8


@pytest.mark.usefixtures("eager_celery")  # the preview reads the explorer's rows, built by a task
def test_pairs_ticked_in_the_explorer_arrive_as_the_selected_rule(client, world):
    client.force_login(world["lead"])
    body = client.get(url(world["project"]), {"rule": "selected", "pick": ["p4", "p5"]}).content.decode()
    assert "p4 p5</textarea>" in body and "<strong>2</strong> pairs meet the rule" in body
    body = client.get(url(world["project"]), {"rule": "selected", "pick": ["p4"]}).content.decode()
    assert "<strong>1</strong> pair meets the rule" in body


def test_selected_rule_without_pairs_says_so(client, world):
    client.force_login(world["lead"])
    response = client.post(url(world["project"]), {"rule": "selected", "pairs": "", "seed": "1"})
    assert response.status_code == 422 and "Select at least one pair." in response.content.decode()
    assert ReannotationRound.objects.count() == 0


def test_page_query_count_does_not_grow_with_rounds(client, world, django_assert_max_num_queries):
    client.force_login(world["lead"])
    reannotation.queue_reannotation(world["project"], "label_disagreement", {}, seed=1)
    explorer_rows.refresh(world["project"])  # the explorer's rows, as the task stores them after a change
    with django_assert_max_num_queries(40) as few:
        client.get(url(world["project"]))
    reannotation.queue_reannotation(world["project"], "do_f1_below", {"threshold": 0.5}, seed=2)
    explorer_rows.refresh(world["project"])
    with django_assert_max_num_queries(len(few.captured_queries) + 3):
        client.get(url(world["project"]))


def test_unreachable_broker_queues_nothing_and_says_so(client, world, task_queue):
    task_queue.refuse_with = ConnectionError("broker down")
    client.force_login(world["lead"])
    response = client.post(url(world["project"]), {"rule": "label_disagreement", "seed": "8"}, follow=True)
    assert "The task queue is unreachable (ConnectionError); nothing was queued" in response.content.decode()
    assert ReannotationRound.objects.count() == 0
