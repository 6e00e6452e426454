"""Importing ETPC: typology → tagset, relation files → phenomena of one annotator, repairs and reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotator.core.tagsets import ETPC_NAME
from annotator.corpus.imports.etpc import spell_out
from annotator.corpus.services import import_corpus
from annotator.models import AnnotationHistory, Membership, Pair, Phenomenon, Project
from tests.make import TWO_ROWS, counts, relation, relations_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs() -> Project:
    assert import_corpus("mrpc", "E", [("msr_paraphrase_train.txt", TWO_ROWS)]).ok
    return Project.objects.get(name="E")


@pytest.mark.slow
def test_real_relation_files_keep_at_least_8900_of_8993_and_name_every_repair_and_skip(
    corpora_dir: Path,
) -> None:
    etpc = corpora_dir / "etpc"
    files = [
        *sorted((corpora_dir / "mrpc").glob("*.txt")),
        etpc / "paraphrase_types.xml",
        etpc / "textual_np_pos.xml",
        etpc / "textual_np_neg.xml",
    ]
    strict = import_corpus("etpc", "ETPC", files, annotator="kovatchev")
    assert not strict.ok and not Project.objects.filter(name="ETPC").exists()

    report = import_corpus("etpc", "ETPC", files, annotator="kovatchev", skip_invalid=True)
    assert report.ok
    kept = report.created["phenomena"]
    assert kept >= 8900
    assert kept + len({(p.file, p.line_or_element) for p in report.skipped}) == 8993
    for finding in report.skipped + report.repaired:  # each names its file, relation and pair
        assert finding.file in ("textual_np_pos.xml", "textual_np_neg.xml")
        assert finding.line_or_element and re.match(r"pair \d+: ", finding.message)
    assert len(report.repaired) > 100
    assert not [p for p in report.skipped if "needs a scope in member" in p.message]  # spec 1.1 allows them
    assert {str(p) for p in strict.problems} == {str(p) for p in report.skipped}

    project = Project.objects.get(name="ETPC")
    assert project.tagset.name == ETPC_NAME
    user = Membership.objects.get(project=project, role="annotator").user
    assert user.username == "kovatchev" and not user.has_usable_password()
    assert Phenomenon.objects.filter(annotator=user).count() == kept
    assert Phenomenon.objects.filter(sense_preserving=False).count() > 3000
    assert AnnotationHistory.objects.filter(project=project, model="phenomenon").count() == kept

    again = import_corpus("etpc", "ETPC", files, annotator="kovatchev", skip_invalid=True)
    assert again.ok and again.created["phenomena"] == 0 and again.unchanged["phenomena"] == kept


@pytest.mark.slow
def test_negation_whole_sentence_scopes_cover_every_token(corpora_dir: Path) -> None:
    files = [*sorted((corpora_dir / "mrpc").glob("*.txt")), corpora_dir / "etpc" / "negation.xml"]
    report = import_corpus("etpc", "Neg", files, annotator="neg", skip_invalid=True)
    assert report.ok and report.created["phenomena"] > 690
    pair = Pair.objects.get(project__name="Neg", source_id="10")
    negation = Phenomenon.objects.get(pair=pair)
    assert negation.scope2 == list(range(len(pair.tokens2)))
    assert [pair.tokens1[i] for i in negation.key1] == ["does", "n't"]
    assert negation.sense_preserving is None
    no_scope = [p for p in report.skipped if "pair 49:" in p.message]
    assert str(no_scope[0]) == (
        "negation.xml:2: s1_scope: pair 49: Select at least one token in member 1 or member 2 as the scope."
    )


def test_matching_relation_is_taken_as_it_is(pairs: Project) -> None:
    data = relations_file(relation("2", "1", s1="5", s2="7", s1_text="selling", s2_text="sold"))
    report = import_corpus("etpc", "E", [("textual_np_pos.xml", data)], annotator="a")
    assert report.ok and report.created["phenomena"] == 1 and not report.repaired
    phenomenon = Phenomenon.objects.get()
    assert (phenomenon.scope1, phenomenon.scope2, phenomenon.sense_preserving) == ([5], [7], True)
    history = AnnotationHistory.objects.get()
    assert (history.model, history.object_id, history.action, history.owner.username) == (
        "phenomenon",
        phenomenon.pk,
        "create",
        "a",
    )
    assert history.after["scope1"] == [5] and history.before is None and history.at.tzinfo is not None


def test_stray_comma_and_shifted_indices_are_repaired_from_the_text(pairs: Project) -> None:
    data = relations_file(
        relation(
            "2",
            "6",
            s1="7, 8",
            s2="8",
            s1_text="the chain",
            s2_text="it",
            k1=", 6",
            k1_text="selling",
            sense="no",
        )
    )
    report = import_corpus("etpc", "E", [("textual_np_neg.xml", data)], annotator="a")
    assert report.ok
    assert [str(p) for p in report.repaired] == [
        "textual_np_neg.xml:1: s1_scope: pair 2: repaired: s1_scope 7, 8 → 6, 7, the tokens of s1_text 'the chain'",
        "textual_np_neg.xml:1: key_s1: pair 2: repaired: dropped the stray leading comma of ', 6'",
        "textual_np_neg.xml:1: key_s1: pair 2: repaired: key_s1 6 → 5, the tokens of k1_text 'selling'",
    ]
    phenomenon = Phenomenon.objects.get()
    assert (phenomenon.scope1, phenomenon.key1, phenomenon.sense_preserving) == ([6, 7], [5], False)


def test_text_that_occurs_twice_without_a_hint_is_reported_not_guessed(pairs: Project) -> None:
    data = relations_file(relation("1", "6", s1="", s2="6", s1_text=",", s2_text="the"))
    report = import_corpus("etpc", "E", [("rel.xml", data)], annotator="a")
    assert [str(p) for p in report.problems] == [
        "rel.xml:1: s1_scope: pair 1: indices none are empty, and s1_text ',' occurs more than once in member 1"
    ]


def test_skip_invalid_imports_the_rest_and_lists_the_skipped(pairs: Project) -> None:
    data = relations_file(
        relation("2", "1", s1="5", s2="7", s1_text="selling", s2_text="sold"),
        relation("2", "25", s1="1", s2="1"),
    )
    before = counts()
    strict = import_corpus("etpc", "E", [("rel.xml", data)], annotator="a")
    assert not strict.ok and counts() == before
    report = import_corpus("etpc", "E", [("rel.xml", data)], annotator="a", skip_invalid=True)
    assert report.ok and report.created["phenomena"] == 1
    assert [str(p) for p in report.skipped] == [
        "rel.xml:2: s2_scope: pair 2: Addition/Deletion takes a scope in one member only: clear member 1 or member 2."
    ]


def test_a_one_sided_phenomenon_of_a_two_sided_type_is_imported_as_spec_1_1_allows(pairs: Project) -> None:
    data = relations_file(relation("2", "1", s1="5", s2="", s1_text="selling", s2_text=""))
    report = import_corpus("etpc", "E", [("rel.xml", data)], annotator="a")
    assert report.ok and report.created["phenomena"] == 1, report.problems
    phenomenon = Phenomenon.objects.get(pair__project=pairs)
    assert (phenomenon.scope1, phenomenon.scope2, phenomenon.ptype.scope_sides) == ([5], [], "any")


def test_words_match_tokens_run_together_and_quotes_by_kind() -> None:
    tokens = ["Shares", "of", "Europe", "’", "s", "drug", "company", "``", "rose", "''", "."]
    assert spell_out(["Europe’s", "company"], tokens) == [[2, 3, 4, 6]]
    assert spell_out(["''rose", "''"], tokens) == [[7, 8, 9]]
    tokens = ["U.S.", "Army", "Pfc.", "Jessica"]
    assert spell_out(["Army", "Pfc", ".", "Jessica"], tokens) == [[1, 2, 3]]


TEXT_PAIRS = b"""<?xml version="1.0" encoding="UTF-8"?>
<xml>
  <pair>
    <pair_id>1</pair_id><sent1_id>702876</sent1_id><sent2_id>702977</sent2_id>
    <sent1_raw>He's here.</sent1_raw><sent2_raw>He is here.</sent2_raw>
    <sent1_tok>He 's here .</sent1_tok><sent2_tok>He is here .</sent2_tok>
    <mrpc_label>1</mrpc_label><etpc_label>0</etpc_label><negation>0</negation>
  </pair>
</xml>
"""
TYPES = b"""<?xml version="1.0" encoding="UTF-8"?>
<xml><paraphrase_type><type_id>1</type_id><type_name>Inflectional Changes</type_name>
<type_category>Morphology</type_category></paraphrase_type>
<paraphrase_type><type_id>99</type_id><type_name>Brand new type</type_name><type_category>Other</type_category>
</paraphrase_type></xml>
"""


def test_text_pairs_typology_and_relations_in_one_import() -> None:
    relations = relations_file(relation("1", "99", s1="1", s2="1", s1_text="'s", s2_text="is"))
    report = import_corpus(
        "etpc",
        "TP",
        [("rel.xml", relations), ("text_pairs.xml", TEXT_PAIRS), ("paraphrase_types.xml", TYPES)],
        annotator="a",
    )
    assert report.ok, report.problems
    assert report.created["types"] == 1 and report.unchanged["types"] == 1
    pair = Pair.objects.get(project__name="TP")
    assert pair.tokens1 == ["He", "'s", "here", "."] and pair.text1 == "He's here."
    assert pair.corpus_labels == {
        "split": "train",
        "mrpc_id1": "702876",
        "mrpc_id2": "702977",
        "mrpc_quality": 1,
        "etpc_label": 0,
        "negation": 0,
    }
    assert Phenomenon.objects.get().ptype.name == "Brand new type"


def test_command_writes_the_full_report(tmp_path: Path) -> None:
    from django.core.management import call_command

    train = tmp_path / "msr_paraphrase_train.txt"
    train.write_bytes(TWO_ROWS)
    rel = tmp_path / "rel.xml"
    rel.write_bytes(relations_file(relation("2", "25", s1="1", s2="1")))
    out = tmp_path / "report.json"
    call_command(
        "import_corpus",
        "--format",
        "etpc",
        "--project",
        "C",
        "--skip-invalid",
        "--report",
        str(out),
        str(train),
        str(rel),
    )
    import json

    saved = json.loads(out.read_text())
    assert saved["ok"] and saved["created"]["pairs"] == 2 and saved["skipped"][0]["line"] == 1
