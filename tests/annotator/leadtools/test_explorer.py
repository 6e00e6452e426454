"""The disagreement explorer: per-pair agreement, ordering and filters, the side-by-side page."""

import pytest
from django.urls import reverse

from annotator.leadtools import disagreement, explorer_rows
from metrics.iapta import do_f1
from metrics.synthetic import synthetic_document
from tests import make

# The explorer's rows are refreshed by a task: in-process here also when the suite has a broker.
pytestmark = pytest.mark.usefixtures("eager_celery")


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(make.team)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def explorer_url(project, **query):
    from urllib.parse import urlencode

    return reverse("annotator:explorer", args=[project.pk]) + ("?" + urlencode(query) if query else "")


def pair_url(project, source_id, **query):
    from urllib.parse import urlencode

    pair = project.pairs.get(source_id=source_id)
    base = reverse("annotator:explorer-pair", args=[project.pk, pair.pk])
    return base + ("?" + urlencode(query) if query else "")


# ---- per-pair values -------------------------------------------------------------------------------


def test_per_pair_do_f1_equals_the_library_called_pair_by_pair():
    doc = synthetic_document(n_pairs=40, n_annotators=3, seed=3)
    raw = {
        "phenomena": {a: [{"pair": x.pair} for x in xs] for a, xs in doc.phenomena.items()},
        "word_alignments": {a: dict.fromkeys(v) for a, v in doc.word_alignments.items()},
    }
    rows = disagreement.pair_agreement(raw, doc)
    checked = 0
    for pid, row in rows.items():
        for key, value in row["do_f1"].items():
            a, b = key.split("|")
            xa = [x for x in doc.phenomena[a] if x.pair == pid]
            xb = [x for x in doc.phenomena[b] if x.pair == pid]
            assert value == pytest.approx(do_f1(xa, xb, tagset=doc.tagset), abs=1e-12)
            checked += 1
    assert checked == 120


def test_rows_of_the_project_mark_label_and_phenomena_disagreement(world):
    _, rows = disagreement.project_rows(world["project"])
    assert rows["p1"]["score"] == 1.0 and not rows["p1"]["label_disagreement"]
    assert rows["p2"]["label_disagreement"] and rows["p2"]["do_f1"]["anna|ben"] == 0.0
    assert rows["p3"]["do_f1"]["anna|ben"] == 0.0 and 0 < rows["p3"]["do_f1"]["anna|cat"] < 1
    assert rows["p3"]["alignment_f1"]["anna|ben"] < 1 == rows["p3"]["alignment_f1"]["anna|cat"]
    assert rows["p3"]["types"] == ["Same polarity", "Semantics"]


def test_ordering_puts_the_lowest_first_and_undefined_last():
    rows = {
        "x": {
            "types": ["A"],
            "annotators": ["a", "b"],
            "do_f1": {"a|b": 0.9},
            "do_f1_by_type": {"a|b": {"A": 0.9}},
            "alignment_f1": {},
            "labels": {},
        },
        "y": {
            "types": ["A"],
            "annotators": ["a", "b"],
            "do_f1": {"a|b": 0.2},
            "do_f1_by_type": {"a|b": {"A": 0.2}},
            "alignment_f1": {},
            "labels": {},
        },
        "z": {
            "types": [],
            "annotators": ["a"],
            "do_f1": {},
            "do_f1_by_type": {},
            "alignment_f1": {},
            "labels": {},
        },
    }
    assert [pid for pid, _ in disagreement.ordered_pairs(rows)] == ["y", "x", "z"]


# ---- the list page -----------------------------------------------------------------------------------


def test_role_matrix(client, world):
    project = world["project"]
    assert client.get(explorer_url(project)).status_code == 302
    client.force_login(world["anna"])
    assert client.get(explorer_url(project)).status_code == 403
    assert client.get(pair_url(project, "p2")).status_code == 403
    client.force_login(world["other_lead"])
    assert client.get(explorer_url(project)).status_code == 404
    assert client.get(pair_url(project, "p2")).status_code == 404
    client.force_login(world["lead"])
    assert client.get(explorer_url(project)).status_code == 200
    client.force_login(world["admin"])
    assert client.get(pair_url(project, "p2")).status_code == 200


def test_lowest_agreement_comes_first(client, world):
    client.force_login(world["lead"])
    body = client.get(explorer_url(world["project"])).content.decode()
    # p3: DO F1 0 (anna|ben), 0.75 (anna|cat), 0 (ben|cat) → 0.25; p2: 0, 1, 0 → 0.33; p1: 1.
    positions = [body.index(f">{sid}</a>") for sid in ("p3", "p2", "p1")]
    assert positions == sorted(positions)


def test_type_filter_keeps_the_pairs_with_that_type(client, world):
    client.force_login(world["lead"])
    body = client.get(explorer_url(world["project"], type="Semantics")).content.decode()
    assert ">p3</a>" in body and ">p1</a>" not in body


def test_annotator_pair_filter_orders_by_that_pair(client, world):
    client.force_login(world["lead"])
    body = client.get(explorer_url(world["project"], annotators="anna|cat")).content.decode()
    # anna and cat differ only on p3 (projection), so p3 comes first; p2 (they agree) later.
    assert body.index(">p3</a>") < body.index(">p2</a>")


def test_label_measure_puts_differing_labels_first(client, world):
    client.force_login(world["lead"])
    body = client.get(explorer_url(world["project"], measure="labels")).content.decode()
    assert body.index(">p2</a>") < body.index(">p1</a>") and "differ" in body


def test_htmx_filter_change_gets_the_results_partial(client, world):
    client.force_login(world["lead"])
    response = client.get(
        explorer_url(world["project"], type="Semantics"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="explorer-results",
    )
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="explorer-results"') and "<html" not in body


def test_list_query_count_does_not_grow_with_pairs(client, world, django_assert_max_num_queries):
    client.force_login(world["lead"])
    client.get(explorer_url(world["project"]))  # stores the explorer's rows (in-process without a broker)
    with django_assert_max_num_queries(12) as few:
        client.get(explorer_url(world["project"]))
    for n in range(5, 25):
        world["project"].pairs.model.objects.create(
            project=world["project"],
            source_id=f"p{n}",
            position=n,
            text1="a",
            text2="b",
            tokens1=["a"],
            tokens2=["b"],
        )
    explorer_rows.refresh(world["project"])
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(explorer_url(world["project"]))


# ---- side by side --------------------------------------------------------------------------------


def test_pair_page_defaults_to_the_two_who_agree_least(client, world):
    client.force_login(world["lead"])
    body = client.get(pair_url(world["project"], "p3")).content.decode()
    assert "<option selected>anna</option>" in body and "<option selected>ben</option>" in body


def test_pair_page_highlights_phenomena_only_one_annotator_has(client, world):
    client.force_login(world["lead"])
    body = client.get(pair_url(world["project"], "p3", a="anna", b="ben")).content.decode()
    assert body.count("lt-status-only") == 2  # anna's Same polarity, ben's Semantics
    assert "lt-tok lt-scope lt-only" in body


def test_pair_page_marks_links_only_one_annotator_has(client, world):
    client.force_login(world["lead"])
    body = client.get(pair_url(world["project"], "p3", a="anna", b="ben")).content.decode()
    assert "only anna (1)" in body and "only ben (0)" in body
    # with the tokens' indices: a word that occurs twice is told apart
    assert (
        'anna: film<sub class="lt-index" title="token 1 of member 1">1</sub> → '
        'Film<sub class="lt-index" title="token 0 of member 2">0</sub>'
    ) in body


def test_pair_page_shows_differing_labels(client, world):
    client.force_login(world["lead"])
    body = client.get(pair_url(world["project"], "p2", a="anna", b="ben")).content.decode()
    assert "lt-differ" in body and "ben: Not a paraphrase" in body


def test_same_scopes_with_another_projection_are_same_scopes_but_not_identical(client, world):
    client.force_login(world["lead"])
    body = client.get(pair_url(world["project"], "p3", a="anna", b="cat")).content.decode()
    assert "lt-status-same" in body and "lt-status-only" not in body


def test_pair_page_query_count(client, world, django_assert_max_num_queries):
    client.force_login(world["lead"])
    explorer_rows.refresh(world["project"])
    with django_assert_max_num_queries(30):
        client.get(pair_url(world["project"], "p3"))
