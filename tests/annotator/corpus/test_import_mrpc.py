"""Importing MRPC TSV files: the real corpus, idempotence, dry runs and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotator.corpus.services import import_corpus
from annotator.models import Pair, Project
from tests.make import TWO_ROWS, counts, mrpc_file

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_full_mrpc_gives_5801_pairs_numbered_like_etpc(corpora_dir: Path) -> None:
    files = sorted((corpora_dir / "mrpc").glob("msr_paraphrase_*.txt"))
    report = import_corpus("mrpc", "MRPC", files)
    assert report.ok, report.problems[:5]
    assert report.created["pairs"] == 5801
    project = Project.objects.get(name="MRPC")
    first = Pair.objects.get(project=project, source_id="1")
    assert first.corpus_labels == {
        "mrpc_quality": 1,
        "mrpc_id1": "702876",
        "mrpc_id2": "702977",
        "split": "train",
    }
    assert first.tokens1[:6] == ["Amrozi", "accused", "his", "brother", ",", "whom"]
    assert (
        "``" in first.tokens1 and "''" in first.tokens1
    )  # double quotes as the Treebank tokenizer writes them
    assert Pair.objects.filter(project=project, corpus_labels__split="train").count() == 4076
    test_first = Pair.objects.get(project=project, source_id="4077")
    assert test_first.corpus_labels["split"] == "test" and test_first.position == 4076

    again = import_corpus("mrpc", "MRPC", files)
    assert again.ok and again.created["pairs"] == 0 and again.unchanged["pairs"] == 5801
    assert Pair.objects.filter(project=project).count() == 5801


def test_unpaired_quotes_are_text_not_csv_quoting() -> None:
    data = mrpc_file(("1", "1", "2", 'He said "yes, and left.', "He said yes."))
    report = import_corpus("mrpc", "Q", [("train.txt", data)])
    assert report.ok
    pair = Pair.objects.get(source_id="1")
    assert pair.text1 == 'He said "yes, and left.' and pair.tokens1[2] == "``"


def test_test_file_rows_follow_the_4076_training_rows() -> None:
    report = import_corpus("mrpc", "T", [("msr_paraphrase_test.txt", TWO_ROWS)])
    assert report.ok
    assert sorted(Pair.objects.values_list("source_id", flat=True)) == ["4077", "4078"]


def test_dry_run_reports_what_would_be_created_and_writes_nothing() -> None:
    before = counts()
    report = import_corpus("mrpc", "Dry", [("train.txt", TWO_ROWS)], dry_run=True)
    assert report.ok and report.created["pairs"] == 2 and report.created["projects"] == 1
    assert "would create" in report.summary()
    assert counts() == before


def test_pair_with_same_id_but_other_text_is_a_problem() -> None:
    import_corpus("mrpc", "P", [("train.txt", TWO_ROWS)])
    changed = TWO_ROWS.replace(b"Amrozi accused", b"Amrozi blamed")
    report = import_corpus("mrpc", "P", [("train.txt", changed)])
    assert not report.ok
    assert str(report.problems[0]) == "train.txt:2: source_id: pair 1 already exists in P with other text"


def test_command_prints_what_it_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "msr_paraphrase_train.txt"
    path.write_bytes(TWO_ROWS)
    call_command("import_corpus", "--format", "mrpc", "--project", "Cmd", str(path))
    assert "Cmd: created 1 project, 2 pairs" in capsys.readouterr().out


def test_command_prints_every_problem_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(mrpc_file(("2", "1", "2", "a", "b"), ("1", "3", "4", "c", "")))
    with pytest.raises(CommandError, match="2 problem"):
        call_command("import_corpus", "--format", "mrpc", "--project", "Bad", str(path))
    out = capsys.readouterr().out.splitlines()
    assert out == ["bad.txt:2: Quality: expected 0 or 1, found '2'", "bad.txt:3: #2 String: empty sentence"]
    assert not Project.objects.filter(name="Bad").exists()


def test_a_clash_with_a_concurrent_import_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    from annotator.corpus import services as corpus

    def clash(ctx: object, records: object) -> None:
        from django.db import IntegrityError

        raise IntegrityError("UNIQUE constraint failed: annotator_pair.project_id, annotator_pair.source_id")

    monkeypatch.setattr(corpus, "write_pairs", clash)
    before = counts()
    report = import_corpus("mrpc", "Clash", [("train.txt", TWO_ROWS)])
    assert not report.ok and report.problems[0].field == "database"
    assert "run the import again" in report.problems[0].message
    assert counts() == before
