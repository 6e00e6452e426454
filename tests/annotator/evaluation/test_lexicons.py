"""Fujita's lexicon evaluation: units from a lexicon and a sentence file (seeded, reproducible), items
in several lexicons with their scores, precision per lexicon and per union, precision by threshold."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.corpus.exports.native import native_document
from annotator.corpus.services import import_corpus
from annotator.evaluation import services as evaluation
from annotator.evaluation.lexicons import (
    UnitRule,
    build_units,
    lexicon_precision,
    lexicon_rows,
    parse_lexicon,
    plan_units,
    sentences_for,
)
from annotator.models import EvaluationItem, EvaluationUnit, Lexicon, LexiconItem, Project
from annotator.projects import services as project_setup
from tests import make
from tests.annotator.evaluation.lexicon_files import FUJITA_LEXICON, LEXICON, SENTENCES

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return project_setup.create_project(
        None,
        name="Lex",
        layer_evaluation=True,
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
    )


def test_units_follow_the_papers_rule_five_paraphrases_per_sentence_from_phrases_with_at_least_five(project):
    result = build_units(project, FUJITA_LEXICON, SENTENCES, UnitRule(seed=7))
    assert result.lexicons == ["P_Del", "P_Seed"]
    assert result.phrases_kept == ["went up"]
    assert result.phrases_too_few == {"fell sharply": 1, "goes down": 4}  # fewer than 5 in the union
    units = list(EvaluationUnit.objects.filter(project=project).order_by("position"))
    assert len(units) == 5 == result.units  # 6 sentences contain "went up" with 10–30 words; 5 drawn
    union = {"rose", "climbed", "increased", "grew", "soared", "jumped", "surged"}
    drawn_sets = []
    for unit in units:
        assert 10 <= len(unit.source_sentence.split()) <= 30 and unit.phrase == "went up"
        items = {i.paraphrase: i for i in unit.items.all()}
        assert len(items) == 5 and set(items) <= union  # 5 of the 7 paraphrases, per sentence
        drawn_sets.append(frozenset(items))
        for paraphrase, item in items.items():
            assert item.sentence == unit.source_sentence.replace("went up", paraphrase, 1)
        if "rose" in items:
            assert items["rose"].candidate_source == "P_Del ∪ P_Seed"
            assert {(e.lexicon.name, e.score) for e in items["rose"].lexicon_entries.all()} == {
                ("P_Seed", 0.9),
                ("P_Del", 0.7),
            }
    assert len(set(drawn_sets)) > 1  # each sentence draws its own five
    assert "too short went up here" not in {u.source_sentence for u in units}
    assert "fewer than 5 paraphrases: 'goes down' (4), 'fell sharply' (1)." in result.summary()


def test_the_same_files_and_seed_build_the_same_units_and_another_seed_may_not(project):
    def drawn(seed: int) -> list[tuple[str, tuple[str, ...]]]:
        plan = plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(seed=seed))
        return [(u.sentence, tuple(c.paraphrase for c in u.candidates)) for u in plan.planned]

    assert drawn(7) == drawn(7)
    assert any(drawn(s) != drawn(7) for s in range(1, 6))
    sentences = SENTENCES.splitlines()
    assert sentences_for("went up", sentences, seed=7) == sentences_for("went up", sentences, seed=7)


def test_data_1_keeps_units_with_a_paraphrase_of_each_lexicon_and_data_2_of_the_given_one(project):
    only_seed = {"climbed", "grew"}  # P_Seed only; P_Del: increased, soared, jumped, surged; rose: both
    for seed in range(20):
        every = plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(seed=seed, n=2))
        data1 = plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(seed=seed, n=2, selection="each"))
        data2 = plan_units(
            FUJITA_LEXICON, SENTENCES, UnitRule(seed=seed, n=2, selection="given", given="P_Seed")
        )
        for plan, test in ((data1, {"P_Del", "P_Seed"}.issubset), (data2, lambda names: "P_Seed" in names)):
            assert plan.units + plan.units_not_selected == every.units
            for unit in plan.planned:
                assert test({name for c in unit.candidates for name in c.scores})
        kept2 = {tuple(c.paraphrase for c in u.candidates) for u in data2.planned}
        expected2 = {
            tuple(c.paraphrase for c in u.candidates)
            for u in every.planned
            if {c.paraphrase for c in u.candidates} & (only_seed | {"rose"})
        }
        assert kept2 == expected2
    assert any(
        plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(seed=s, n=2, selection="each")).units_not_selected
        for s in range(20)
    )


def test_only_the_chosen_lexicons_count_towards_the_minimum(project):
    plan = plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(lexicons=("P_Del",), n=5))
    assert plan.phrases_kept == ["went up"]  # rose, increased, soared, jumped, surged
    assert plan.phrases_too_few == {"goes down": 2, "fell sharply": 0}
    assert all({name for c in u.candidates for name in c.scores} == {"P_Del"} for u in plan.planned)
    assert not plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(lexicons=("P_Seed",), n=5)).phrases_kept
    with pytest.raises(ValidationError, match="P_Nope: not in the lexicon file"):
        plan_units(FUJITA_LEXICON, SENTENCES, UnitRule(lexicons=("P_Nope",)))


def test_the_page_says_which_rule_built_each_lexicons_units(client, project):
    build_units(project, FUJITA_LEXICON, SENTENCES, UnitRule(seed=7))
    old = Lexicon.objects.create(project=project, name="P_Old", builds=[{"rule": "every-paraphrase"}])
    rows = {row.name: row.rules for row in lexicon_rows(project)}
    assert rows["P_Seed"] == [
        "Fujita §5.1: phrases with at least 5 paraphrases in P_Del ∪ P_Seed; up to 5 sentences per phrase; "
        "5 paraphrases drawn per sentence; seed 7"
    ]
    assert "every paraphrase of the phrase" in rows[old.name][0]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("went up\trose\t0.9", "lex.tsv:2: expected 4 tab-separated fields"),
        ("went up\trose\thigh\tP_Seed", "lex.tsv:2: score: 'high' is not a number."),
        ("went up\t\t0.5\tP_Seed", "lex.tsv:2: paraphrase is empty."),
        ("went up\twent up\t0.5\tP_Seed", "lex.tsv:2: paraphrase: the same as the phrase"),
    ],
)
def test_a_bad_lexicon_line_names_file_line_and_field_and_nothing_is_written(project, line, message):
    text = "phrase\tparaphrase\tscore\tlexicon\n" + line + "\n"
    with pytest.raises(ValidationError) as caught:
        build_units(project, text, SENTENCES, lexicon_filename="lex.tsv")
    assert message in str(caught.value)
    assert not EvaluationUnit.objects.exists() and not LexiconItem.objects.exists()


def test_a_duplicate_candidate_of_one_lexicon_is_refused():
    with pytest.raises(ValidationError, match="lists 'a' → 'b' twice"):
        parse_lexicon("a\tb\t1\tL\na\tb\t2\tL\n", "x")


def test_no_fitting_sentence_is_an_error(project):
    with pytest.raises(ValidationError, match="in no sentence of 10–30 words: 'went up'"):
        build_units(project, LEXICON, "went up is short\n", UnitRule(n=1))
    assert not EvaluationUnit.objects.exists()


def test_precision_per_lexicon_union_and_threshold_by_majority(project):
    build_units(project, LEXICON, SENTENCES, UnitRule(seed=7, n=3, per_phrase=1))
    unit = EvaluationUnit.objects.get(project=project)
    raters = [make.user(name) for name in ("r1", "r2", "r3")]
    evaluation.assign_units(project, raters, r=3, seed=0)
    labels = {  # rose: OK by all; climbed: G NG by 2 of 3; increased: M NG by 2 of 3
        "rose": [("Perfect", "Equivalent")] * 3,
        "climbed": [("Irredeemable", "Equivalent")] * 2 + [("Perfect", "Equivalent")],
        "increased": [("Perfect", "Completely Different")] * 2 + [("Perfect", "Equivalent")],
    }
    items = list(unit.items.all())
    for n, rater in enumerate(raters):
        make.rate_unit(
            unit,
            rater,
            [labels[item.paraphrase][n][0] for item in items],
            [labels[item.paraphrase][n][1] for item in items],
        )
    result = lexicon_precision(project)
    rows = {r.source: r for r in result["before"]}
    assert set(rows) == {"P_Del", "P_Seed", "P_Del ∪ P_Seed"}
    assert (rows["P_Seed"].n_items, rows["P_Seed"].g, rows["P_Seed"].both) == (2, 0.5, 0.5)  # rose, climbed
    assert (rows["P_Del"].n_items, rows["P_Del"].m, rows["P_Del"].both) == (2, 0.5, 0.5)  # rose, increased
    union = rows["P_Del ∪ P_Seed"]
    assert union.n_items == 3 and union.both == pytest.approx(1 / 3)  # rose counted once
    seed_points = [
        (p.threshold, p.n_items, p.g, p.m, p.both) for p in result["threshold"]["before"]["P_Seed"]
    ]
    assert seed_points == [(0.9, 1, 1.0, 1.0, 1.0), (0.6, 2, 0.5, 1.0, 0.5)]
    union_points = [(p.threshold, p.n_items, p.both) for p in result["threshold"]["before"]["P_Del ∪ P_Seed"]]
    assert union_points == [(0.9, 1, 1.0), (0.6, 2, 0.5), (0.4, 3, pytest.approx(1 / 3))]  # rose at 0.9
    assert result["threshold"]["after"] is None
    rose = next(item for item in items if item.paraphrase == "rose")
    assert EvaluationItem.objects.get(pk=rose.pk).lexicons.count() == 2


def test_lexicon_page_builds_units_and_shows_errors_at_the_form(client, project):
    lead = make.user("lead")
    project.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    url = reverse("annotator:evaluation-lexicons", args=[project.pk])
    bad = client.post(
        url,
        {
            "lexicon_file": SimpleUploadedFile("lex.tsv", b"went up\trose\n"),
            "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
            "seed": 0,
            "n": 5,
            "per_phrase": 5,
        },
    )
    assert bad.status_code == 422 and "lex.tsv:1: expected 4 tab-separated fields" in bad.content.decode()
    ok = client.post(
        url,
        {
            "lexicon_file": SimpleUploadedFile("lex.tsv", LEXICON.encode()),
            "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
            "seed": 3,
            "n": 3,
            "per_phrase": 2,
        },
        follow=True,
    )
    html = ok.content.decode()
    assert "Built 2 units with 6 candidate sentences from P_Del, P_Seed: 1 of 2 phrases kept." in html
    assert "1 with fewer than 3 paraphrases: &#x27;fell sharply&#x27; (1)." in html
    assert "P_Del ∪ P_Seed" in html and "Fujita, Fig. 3" in html and "Perfect, Awkward;" in html


def test_native_export_and_import_keep_each_items_lexicons_and_scores(project):
    build_units(project, LEXICON, SENTENCES, UnitRule(seed=7, n=3, per_phrase=2))
    doc = native_document(project)
    rose = next(i for i in doc["workbench"]["evaluation_units"][0]["items"] if i["paraphrase"] == "rose")
    assert rose["lexicons"] == {"P_Del": 0.7, "P_Seed": 0.9}
    data = json.dumps(doc).encode()
    report = import_corpus("native", "Copy", [("lex.json", data)])
    assert report.ok, report.problems
    copy = Project.objects.get(name="Copy")

    def links(p):
        return sorted(
            LexiconItem.objects.filter(lexicon__project=p).values_list(
                "item__unit__source_id", "item__paraphrase", "lexicon__name", "score"
            )
        )

    assert links(copy) == links(project) and len(links(copy)) == 8
    again = import_corpus("native", "Copy", [("lex.json", data)])
    assert again.ok and len(links(copy)) == 8
