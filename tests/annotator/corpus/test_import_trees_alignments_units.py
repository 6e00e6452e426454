"""PTB trees, Pharaoh alignments and evaluation units: attached to existing pairs, checked, idempotent."""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.corpus.services import import_corpus
from annotator.models import AlignmentLink, EvaluationItem, EvaluationUnit, Pair, Project
from tests import make
from tests.make import counts

pytestmark = pytest.mark.django_db

TREE1 = "(S (NP (DT The) (NN film)) (VP (VBD opened) (PP (IN on) (NNP Friday))) (. .))"
TREE2 = "(S (NP (NN Film)) (VP (VBD premiered) (NP (NNP Friday))) (. .))"


@pytest.fixture
def project() -> Project:
    return make.project_with_pairs("T", n_pairs=2)


def test_trees_are_attached_with_their_nodes(project: Project) -> None:
    Pair.objects.filter(project=project).update(tree1="", tree2="", nodes1=[], nodes2=[])
    data = f"# trees\np1\t1\t{TREE1}\np1\t2\t{TREE2}\n".encode()
    report = import_corpus("ptb", "T", [("trees.txt", data)])
    assert report.ok and report.created["trees"] == 2
    pair = Pair.objects.get(source_id="p1")
    assert pair.tree1 == TREE1 and pair.nodes2[0] == {
        "label": "S",
        "start": 0,
        "end": 4,
        "depth": 0,
        "parent": None,
    }
    again = import_corpus("ptb", "T", [("trees.txt", data)])
    assert again.ok and again.unchanged["trees"] == 2 and not again.created


def test_tree_whose_leaves_differ_from_the_tokens_says_where(project: Project) -> None:
    before = counts()
    report = import_corpus(
        "ptb",
        "T",
        [
            (
                "t.txt",
                b"p2\t2\t(S (NP (NN Movie)) (VP (VBD premiered)))\n"
                b"p9\t1\t(S (X x))\nx\t3\t(S)\np1\t1\t(S (NP\n",
            )
        ],
    )
    assert [str(p) for p in report.problems] == [
        "t.txt:3: member: expected 1 or 2, found '3'",
        "t.txt:4: tree: not a Penn Treebank bracketed tree: " + report.problems[1].message.split(": ", 1)[1],
        "t.txt:1: tree: pair p2 member 2: the tree has 2 leaves but the member has 4 tokens",
        "t.txt:2: pair: pair p9: no such pair in the project",
    ]
    assert counts() == before


def test_pharaoh_links_sure_and_possible_per_annotator(project: Project) -> None:
    data = b"p1\t1-0 4-2 5?3\np2\t\n"
    report = import_corpus("pharaoh", "T", [("anna.align", data)], annotator="anna")
    assert report.ok and report.created["links"] == 3
    links = AlignmentLink.objects.filter(annotator__username="anna").order_by("i")
    assert [(link.i, link.j, link.sure) for link in links] == [(1, 0, True), (4, 2, True), (5, 3, False)]
    again = import_corpus("pharaoh", "T", [("anna.align", data)], annotator="anna")
    assert again.ok and again.unchanged["links"] == 3 and sum(again.created.values()) == 0


def test_pharaoh_bad_links_are_precise(project: Project) -> None:
    before = counts()
    report = import_corpus("pharaoh", "T", [("a.align", b"p1\t1-0 9-1\np2\t1:2\n")], annotator="anna")
    assert [str(p) for p in report.problems] == [
        "a.align:2: links: '1:2' is not a link: expected i-j (sure) or i?j (possible)",
        "a.align:1: links: pair p1: i: Token 9 is outside member 1, which has 6 tokens (0–5).",
    ]
    assert counts() == before


def test_pharaoh_initial_alignment(project: Project) -> None:
    report = import_corpus("pharaoh", "T", [("init.align", b"p1\t0-0 1-0\n")], annotator="initial")
    assert report.ok and report.created["initial alignments"] == 1
    pair = Pair.objects.get(source_id="p1")
    assert pair.initial_alignment == [[0, 0], [1, 0]] and pair.initial_alignment_source == "imported"
    assert not AlignmentLink.objects.exists()


def test_pharaoh_adds_to_work_done_in_the_editor(project: Project) -> None:
    anna = make.cast().anna
    pair = Pair.objects.get(source_id="p1")
    annotation_services.set_links(pair, anna, [(1, 0)], sure=False, base_version=None)
    report = import_corpus("pharaoh", "T", [("a.align", b"p1\t1-0 2-1\n")], annotator="anna")
    assert report.ok and report.created["links"] == 1 and report.created["sure/possible changes"] == 1
    assert AlignmentLink.objects.get(i=1, j=0).sure is True


UNITS_CSV = (
    b"unit_id,source_sentence,item_id,paraphrase,candidate_source\n"
    b"u1,The council [[put off]] the vote.,e1,postponed,lexicon-A\n"
    b'u1,The council [[put off]] the vote.,e2,"delayed, again",system-X\n'
)


def test_units_from_csv_with_marked_phrase() -> None:
    report = import_corpus("units", "Eval", [("units.csv", UNITS_CSV)])
    assert report.ok and report.created["units"] == 1 and report.created["items"] == 2
    unit = EvaluationUnit.objects.get()
    assert (unit.source_sentence, unit.phrase, unit.phrase_start) == (
        "The council put off the vote.",
        "put off",
        12,
    )
    assert EvaluationItem.objects.get(source_id="e2").sentence == "The council delayed, again the vote."
    assert import_corpus("units", "Eval", [("units.csv", UNITS_CSV)]).unchanged["units"] == 1


def test_units_from_jsonl_with_phrase_column() -> None:
    data = (
        b'{"unit_id": "u7", "source_sentence": "Go on and on.", "phrase": "on", "phrase_start": 10, '
        b'"item_id": "a", "paraphrase": "forever"}\n'
    )
    report = import_corpus("units", "Eval", [("units.jsonl", data)])
    assert report.ok
    assert EvaluationItem.objects.get().sentence == "Go on and forever."


def test_units_problems_name_line_and_column() -> None:
    data = b"unit_id,source_sentence,phrase,item_id,paraphrase\nu1,Go on and on.,on,a,forever\nu2,Sit down.,,b,\n"
    before = counts()
    report = import_corpus("units", "Eval", [("u.csv", data)])
    assert [str(p) for p in report.problems] == [
        "u.csv:2: phrase: the phrase 'on' occurs more than once in the source sentence; give phrase_start",
        "u.csv:3: paraphrase: empty",
    ]
    assert counts() == before
    wrong = import_corpus("units", "Eval", [("u.csv", b"unit;sentence\n")])
    assert str(wrong.problems[0]).startswith("u.csv:1: header: missing column(s) unit_id, source_sentence")
