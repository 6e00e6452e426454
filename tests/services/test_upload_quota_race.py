"""Concurrent uploads on PostgreSQL cannot pass the hourly upload limit together: the quota is checked
and the job recorded with the user's row locked."""

from __future__ import annotations

import pytest

from annotator.corpus import jobs as corpus_jobs
from annotator.corpus.retention import UploadLimitExceeded
from annotator.models import CorpusJob
from tests import make
from tests.make import TWO_ROWS
from tests.services.test_concurrency import run_together

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_concurrent_uploads_stay_within_the_hourly_limit(postgres_required, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    settings.UPLOADS_PER_HOUR = 4
    make.isolate_cache(settings)
    monkeypatch.setattr(corpus_jobs, "run_import", lambda job_id: None)  # record the jobs, run none
    monkeypatch.setattr(corpus_jobs, "send", lambda task, job_id: None)
    cast = make.cast()
    project = make.project_with_pairs("P", n_pairs=1, lead=cast.lead)

    def upload():
        return corpus_jobs.start_import(cast.lead, "mrpc", "P", [("train.txt", TWO_ROWS)], project=project)

    results = run_together([upload] * 10)
    refused = [r for r in results if isinstance(r, UploadLimitExceeded)]
    assert not [r for r in results if isinstance(r, Exception) and r not in refused], results
    assert CorpusJob.objects.filter(created_by=cast.lead).count() == 4 and len(refused) == 6
