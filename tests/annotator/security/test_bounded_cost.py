"""Bounded cost: uploads removed when their job ends (a failed job's after N days), hourly upload limits,
and lists that cost the same per request on a project of 1,000,000 pairs as on a small one."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotator.corpus import jobs as corpus_jobs
from annotator.corpus import retention
from annotator.models import CorpusJob, Pair
from tests import make
from tests.make import TWO_ROWS

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings: Any, tmp_path: Path) -> dict[str, Any]:
    settings.MEDIA_ROOT = tmp_path
    cache.clear()
    lead = make.user("lead")
    project = make.project_with_pairs("P", n_pairs=1, lead=lead)
    return {"lead": lead, "project": project, "media": tmp_path}


def stored_files(media: Path) -> list[Path]:
    return sorted(p for p in (media / "corpus_jobs").rglob("*") if p.is_file())


def test_a_finished_import_leaves_no_upload_behind(world: dict[str, Any]) -> None:
    job = corpus_jobs.start_import(
        world["lead"], "mrpc", "P", [("train.txt", TWO_ROWS)], project=world["project"]
    )
    assert job.status == "succeeded"
    assert stored_files(world["media"]) == []
    assert job.input_files == [{"name": "train.txt", "path": "", "size": len(TWO_ROWS)}]


def test_a_failed_imports_upload_is_kept_n_days_then_cleaned_up(world: dict[str, Any], settings: Any) -> None:
    settings.FAILED_UPLOAD_KEEP_DAYS = 3
    job = corpus_jobs.start_import(
        world["lead"], "mrpc", "P", [("bad.txt", b"not mrpc")], project=world["project"]
    )
    assert job.status == "failed"
    [kept] = stored_files(world["media"])
    assert kept.read_bytes() == b"not mrpc"
    assert retention.clean_up().jobs == 0  # within the 3 days
    CorpusJob.objects.filter(pk=job.pk).update(finished_at=timezone.now() - timedelta(days=3, hours=1))
    done = retention.clean_up()
    assert (done.jobs, done.bytes) == (1, len(b"not mrpc"))
    assert stored_files(world["media"]) == []


def test_the_command_removes_folders_of_deleted_jobs(world: dict[str, Any], capsys: Any) -> None:
    orphan = world["media"] / "corpus_jobs" / "987654"
    orphan.mkdir(parents=True)
    (orphan / "00-train.txt").write_bytes(b"x" * 10)
    call_command("clean_up_uploads")
    assert "1 folders of deleted jobs" in capsys.readouterr().out
    assert not orphan.exists()


def test_hourly_upload_limits_give_a_clear_message(world: dict[str, Any], settings: Any) -> None:
    settings.UPLOADS_PER_HOUR = 2
    for _ in range(2):
        corpus_jobs.start_import(world["lead"], "mrpc", "P", [("t.txt", TWO_ROWS)], project=world["project"])
    client = Client()
    client.force_login(world["lead"])
    url = reverse("annotator:corpus-jobs", args=[world["project"].pk])
    response = client.post(url, {"format": "mrpc", "files": SimpleUploadedFile("t.txt", TWO_ROWS)})
    assert response.status_code == 422
    assert (
        "You started 2 uploads (imports, lexicon builds) in the last hour; the limit is 2 an hour."
        in response.content.decode()
    )
    assert CorpusJob.objects.count() == 2
    api = make.api_client(world["lead"])
    response = api.post(
        "/api/jobs/import/",
        {"project": world["project"].pk, "format": "mrpc", "files": SimpleUploadedFile("t.txt", TWO_ROWS)},
        format="multipart",
    )
    assert response.status_code == 429 and "the limit is 2 an hour" in response.json()["files"][0]


def test_hourly_megabytes(world: dict[str, Any], settings: Any) -> None:
    settings.UPLOAD_MB_PER_HOUR = 1
    corpus_jobs.start_import(world["lead"], "mrpc", "P", [("t.txt", TWO_ROWS)], project=world["project"])
    with pytest.raises(retention.UploadLimitExceeded, match="the limit is 1 MB an hour"):
        corpus_jobs.start_import(
            world["lead"], "mrpc", "P", [("t.txt", b"x" * 2**20)], project=world["project"]
        )


# ---- lists on a large project ------------------------------------------------------------------------


def grow(project: Any, n: int) -> None:
    """`n` more pairs, inserted in bulk (the shape of a corpus of that size, without the import's cost)."""
    start = project.pairs.count()
    Pair.objects.bulk_create(
        [
            Pair(
                project=project,
                source_id=f"s{k}",
                position=k,
                text1="a b",
                text2="a c",
                tokens1=["a", "b"],
                tokens2=["a", "c"],
            )
            for k in range(start, start + n)
        ],
        batch_size=5000,
    )


def cost(client: Any, url: str, **headers: Any) -> tuple[int, int, list[str]]:
    """(status, number of queries, the SQL of the queries that read pairs) of one request."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    pair_reads = [q["sql"] for q in queries.captured_queries if 'FROM "annotator_pair"' in q["sql"]]
    return response.status_code, len(queries.captured_queries), pair_reads


@pytest.mark.parametrize("which", ["pairs page", "pairs API"])
def test_pair_lists_cost_the_same_on_30_000_pairs(world: dict[str, Any], which: str) -> None:
    project, lead = world["project"], world["lead"]
    client: Any = Client() if which == "pairs page" else make.api_client(lead)
    if which == "pairs page":
        client.force_login(lead)
    url = (
        reverse("annotator:pair-list", args=[project.pk]) + "?page=2"
        if which == "pairs page"
        else f"/api/pairs/?project={project.pk}&page=2"
    )
    grow(project, 120)
    small = cost(client, url)
    grow(project, 30_000)
    large = cost(client, url)
    assert small[0] == large[0] == 200
    assert small[1] == large[1]  # the same number of queries
    for sql in large[2]:  # every read of pairs is a count or one page of 50 rows
        assert "COUNT(" in sql or "LIMIT 50" in sql, sql
