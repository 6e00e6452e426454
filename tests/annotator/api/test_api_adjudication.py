"""REST API: adjudication of a pair (versions, take, merge, label, gold phenomena, links, phrase alignments).

The world (tests/make.py), pair p3: anna and cat mark Same polarity over opened→premiered
(cat: global projection), ben marks Semantics over "opened on" and misses the link film→Film.
"""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.leadtools import adjudication
from annotator.models import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon, PhraseAlignment
from tests import make
from tests.make import api_client


def team_at_p3():
    w = make.team()
    w["pair"] = w["project"].pairs.get(source_id="p3")
    return w


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(team_at_p3)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def url(world, rest=""):
    return f"/api/projects/{world['project'].pk}/pairs/{world['pair'].pk}/adjudication/{rest}"


def post(world, rest, body, user="lead"):
    return api_client(world[user]).post(url(world, rest), body, format="json")


def gold(pair):
    return {
        "label": PairLabel.objects.filter(pair=pair, is_gold=True).values_list("label", flat=True).first(),
        "phenomena": sorted(
            Phenomenon.objects.filter(pair=pair, is_gold=True).values_list("ptype__name", "projection")
        ),
        "links": sorted(AlignmentLink.objects.filter(pair=pair, is_gold=True).values_list("i", "j")),
    }


def row_of(world, model, user, **filters):
    return model.objects.get(pair=world["pair"], annotator=world[user], is_gold=False, **filters)


def take_ben(world):
    return adjudication.take_version(world["pair"], world["ben"], world["lead"], base_version=0)


# ---- reading --------------------------------------------------------------------------------------


def test_lead_reads_every_annotators_version_and_the_gold(world):
    response = api_client(world["lead"]).get(url(world))
    assert response.status_code == 200
    body = response.json()
    assert [v["username"] for v in body["versions"]] == ["anna", "ben", "cat"]
    ben = body["versions"][1]
    assert ben["owner"] == world["ben"].pk and ben["version"] > 0 and len(ben["links"]) == 3
    assert body["gold"]["version"] == 0 and body["gold"]["owner"] is None and body["gold"]["phenomena"] == []
    assert body["in_gold"] == {"phenomena": [], "links": [], "phrase_alignments": []}


def test_rows_gold_already_has_are_listed(world):
    version = take_ben(world)
    body = api_client(world["lead"]).get(url(world)).json()
    assert body["gold"]["version"] == version and body["gold"]["owner"] == world["lead"].pk
    assert body["in_gold"]["phenomena"] == [row_of(world, Phenomenon, "ben").pk]
    assert len(body["in_gold"]["links"]) == 3 + 3 + 3  # ben's three links, which anna and cat have too


# ---- take, merge, label ---------------------------------------------------------------------------


def test_take_copies_a_version_into_gold_with_the_lead_as_actor(world):
    response = post(world, "take/", {"source": world["ben"].pk, "base_version": 0})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["version"] == body["gold"]["version"] > 0
    assert gold(world["pair"]) == {
        "label": "paraphrase",
        "phenomena": [("Semantics", "local")],
        "links": [(2, 1), (4, 2), (5, 3)],
    }
    actors = set(
        AnnotationHistory.objects.filter(pair=world["pair"], owner=world["lead"]).values_list(
            "actor", flat=True
        )
    )
    assert actors == {world["lead"].pk}


def test_take_from_someone_who_is_not_an_annotator_is_400(world):
    response = post(world, "take/", {"source": world["lead"].pk, "base_version": 0})
    assert response.status_code == 400
    assert response.json() == {"source": ["Choose one of the project's annotators."]}
    assert gold(world["pair"])["label"] is None


def test_merge_adds_the_selected_rows_once(world):
    cat_phenomenon = row_of(world, Phenomenon, "cat")
    ann_link = row_of(world, AlignmentLink, "anna", i=1, j=0)
    body = {
        "phenomena": [cat_phenomenon.pk],
        "links": [ann_link.pk],
        "label_from": world["cat"].pk,
        "base_version": 0,
    }
    response = post(world, "merge/", body)
    assert response.status_code == 200, response.json()
    expected = {"label": "paraphrase", "phenomena": [("Same polarity", "global")], "links": [(1, 0)]}
    assert gold(world["pair"]) == expected
    again = post(world, "merge/", body | {"base_version": response.json()["version"]})
    assert again.status_code == 200 and gold(world["pair"]) == expected


def test_merge_refuses_rows_of_another_pair(world):
    elsewhere = Phenomenon.objects.filter(pair__source_id="p1", is_gold=False).first()
    response = post(world, "merge/", {"phenomena": [elsewhere.pk], "base_version": 0})
    assert (
        response.status_code == 400
        and "is not an annotator's row of this pair" in response.json()["phenomenon"][0]
    )
    assert Phenomenon.objects.filter(is_gold=True).count() == 0


def test_set_gold_label(world):
    response = post(world, "label/", {"label": "non_paraphrase", "base_version": 0})
    assert response.status_code == 200 and response.json()["gold"]["label"] == "non_paraphrase"
    assert post(world, "label/", {"label": "maybe", "base_version": None}).status_code == 400


# ---- gold rows --------------------------------------------------------------------------------------


def ptypes(world):
    return make.types(world["project"])


def test_add_update_and_remove_a_gold_phenomenon(world):
    body = {"ptype": ptypes(world)["Same polarity"].pk, "scope1": [2], "scope2": [1], "projection": "local"}
    added = post(world, "phenomena/", body | {"base_version": 0})
    assert added.status_code == 200, added.json()
    phenomenon = added.json()["gold"]["phenomena"][0]
    client = api_client(world["lead"])
    changed = client.patch(
        url(world, f"phenomena/{phenomenon['id']}/"),
        {"scope1": [2, 3], "comment": "checked", "base_version": added.json()["version"]},
        format="json",
    )
    assert changed.status_code == 200, changed.json()
    assert changed.json()["gold"]["phenomena"][0]["scope1"] == [2, 3]
    removed = client.delete(
        url(world, f"phenomena/{phenomenon['id']}/?base_version={changed.json()['version']}")
    )
    assert removed.status_code == 200 and removed.json()["gold"]["phenomena"] == []
    assert not Phenomenon.objects.filter(is_gold=True).exists()


def test_gold_phenomena_follow_the_shared_validation(world):
    t = ptypes(world)
    outside = post(
        world,
        "phenomena/",
        {"ptype": t["Semantics"].pk, "scope1": [31], "projection": "local", "base_version": 0},
    )
    assert outside.status_code == 400
    assert outside.json() == {"scope1": ["Token 31 is outside member 1, which has 6 tokens (0–5)."]}
    projected = next(x for x in t.values() if x.projection_required)
    missing = post(
        world, "phenomena/", {"ptype": projected.pk, "scope1": [2], "scope2": [1], "base_version": 0}
    )
    assert missing.status_code == 400 and "requires a projection" in missing.json()["projection"][0]
    assert not Phenomenon.objects.filter(is_gold=True).exists()


def test_set_re_mark_and_remove_a_gold_link(world):
    added = post(world, "links/", {"i": 1, "j": 0, "base_version": 0})
    assert added.status_code == 200 and added.json()["gold"]["links"][0]["sure"] is True
    re_marked = post(
        world, "links/", {"i": 1, "j": 0, "sure": False, "base_version": added.json()["version"]}
    )
    link = re_marked.json()["gold"]["links"][0]
    assert link["sure"] is False and len(re_marked.json()["gold"]["links"]) == 1
    removed = api_client(world["lead"]).delete(
        url(world, f"links/{link['id']}/?base_version={re_marked.json()['version']}")
    )
    assert removed.status_code == 200 and removed.json()["gold"]["links"] == []
    assert post(world, "links/", {"i": 9, "j": 0, "base_version": None}).status_code == 400


def test_remove_a_gold_phrase_alignment(world):
    alignment, _ = annotation_services.add_phrase_alignment(
        world["pair"], world["ben"], 1, 1, base_version=None
    )
    merged = post(world, "merge/", {"phrase_alignments": [alignment.pk], "base_version": 0})
    gold_alignment = merged.json()["gold"]["phrase_alignments"][0]
    assert (gold_alignment["node1"], gold_alignment["node2"], gold_alignment["is_gold"]) == (1, 1, True)
    removed = api_client(world["lead"]).delete(
        url(world, f"phrase-alignments/{gold_alignment['id']}/?base_version={merged.json()['version']}")
    )
    assert removed.status_code == 200 and removed.json()["gold"]["phrase_alignments"] == []
    assert PhraseAlignment.objects.filter(pk=alignment.pk).exists()  # ben's own stays


def test_an_annotators_row_cannot_be_removed_as_gold(world):
    version = take_ben(world)
    client = api_client(world["lead"])
    for path, row in (
        ("phenomena", row_of(world, Phenomenon, "ben")),
        ("links", row_of(world, AlignmentLink, "ben", i=2, j=1)),
    ):
        response = client.delete(url(world, f"{path}/{row.pk}/?base_version={version}"))
        assert response.status_code == 400 and "is not in this pair's gold" in str(response.json())
        assert type(row).objects.filter(pk=row.pk).exists()


def test_delete_needs_the_base_version(world):
    take_ben(world)
    phenomenon = Phenomenon.objects.get(pair=world["pair"], is_gold=True)
    response = api_client(world["lead"]).delete(url(world, f"phenomena/{phenomenon.pk}/"))
    assert response.status_code == 400 and "base_version" in response.json()


# ---- optimistic concurrency ---------------------------------------------------------------------


def stale_requests(world):
    """Each gold change, based on version 0 while gold has moved on."""
    gold_phenomenon = Phenomenon.objects.get(pair=world["pair"], is_gold=True)
    gold_link = AlignmentLink.objects.filter(pair=world["pair"], is_gold=True).first()
    ptype = ptypes(world)["Same polarity"].pk
    return [
        ("post", "take/", {"source": world["cat"].pk, "base_version": 0}),
        ("post", "merge/", {"phenomena": [row_of(world, Phenomenon, "cat").pk], "base_version": 0}),
        ("post", "label/", {"label": "non_paraphrase", "base_version": 0}),
        (
            "post",
            "phenomena/",
            {"ptype": ptype, "scope1": [2], "scope2": [1], "projection": "local", "base_version": 0},
        ),
        ("patch", f"phenomena/{gold_phenomenon.pk}/", {"comment": "late", "base_version": 0}),
        ("delete", f"phenomena/{gold_phenomenon.pk}/?base_version=0", None),
        ("post", "links/", {"i": 1, "j": 0, "base_version": 0}),
        ("delete", f"links/{gold_link.pk}/?base_version=0", None),
    ]


def test_stale_base_version_is_409_with_the_current_version_and_changes_nothing(world):
    version = take_ben(world)
    before = gold(world["pair"])
    client = api_client(world["lead"])
    for method, rest, body in stale_requests(world):
        response = getattr(client, method)(url(world, rest), body, format="json")
        assert response.status_code == 409, (method, rest, response.content)
        assert response.json()["current_version"] == version
        assert "changed by someone else" in response.json()["detail"]
    assert gold(world["pair"]) == before
    assert adjudication.versions(world["pair"], [])[1].sheet_version == version


def test_null_base_version_skips_the_check(world):
    take_ben(world)
    response = post(world, "label/", {"label": "non_paraphrase", "base_version": None})
    assert response.status_code == 200 and gold(world["pair"])["label"] == "non_paraphrase"


# ---- who may ------------------------------------------------------------------------------------


def test_annotators_cannot_read_or_change_the_adjudication(world):
    """An annotator never receives the other annotators' versions, and gold belongs to the leads."""
    response = api_client(world["anna"]).get(url(world))
    assert response.status_code == 403
    assert "Semantics" not in response.content.decode() and "ben" not in response.content.decode()
    assert (
        post(world, "take/", {"source": world["anna"].pk, "base_version": None}, user="anna").status_code
        == 403
    )
    assert (
        post(world, "label/", {"label": "paraphrase", "base_version": None}, user="anna").status_code == 403
    )
    assert gold(world["pair"])["label"] is None
    assert api_client(None).get(url(world)).status_code in (401, 403)


def test_leads_of_another_project_get_404_and_admins_may(world):
    assert api_client(world["other_lead"]).get(url(world)).status_code == 404
    assert (
        post(world, "take/", {"source": world["ben"].pk, "base_version": 0}, user="other_lead").status_code
        == 404
    )
    assert api_client(world["admin"]).get(url(world)).status_code == 200
    assert (
        post(world, "take/", {"source": world["ben"].pk, "base_version": 0}, user="admin").status_code == 200
    )


def test_a_pair_of_another_project_is_not_found_under_this_one(world):
    other_pair = world["other"].pairs.first()
    path = f"/api/projects/{world['project'].pk}/pairs/{other_pair.pk}/adjudication/"
    assert api_client(world["lead"]).get(path).status_code == 404


def test_reading_the_adjudication_takes_few_queries(world, django_assert_max_num_queries):
    take_ben(world)
    with django_assert_max_num_queries(15):
        assert api_client(world["lead"]).get(url(world)).status_code == 200
