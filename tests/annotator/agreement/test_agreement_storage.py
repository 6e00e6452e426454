"""Storage proportional to the change: an incremental update writes what the changed pair touches
(its state row, the sections it changes, the small report rows), not a row that grows with the corpus."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.agreement import incremental
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from tests import make

pytestmark = pytest.mark.django_db

UPDATES = 12
WRITE = re.compile(r'^\s*(INSERT INTO|UPDATE)\s+"(annotator_agreement\w*)"', re.IGNORECASE)


def _bytes_written_by_updates(name: str, n_pairs: int, monkeypatch) -> tuple[int, dict[str, int]]:
    """Bytes of the agreement rows written (SQL of the INSERTs and UPDATEs, values inlined) by UPDATES
    recomputes after one pair label changed each, on a project of `n_pairs` pairs; and the rows written
    per table."""
    anns = tuple(make.user(f"{name}-{k}") for k in range(3))
    project = make.project_with_pairs(name, n_pairs=n_pairs, lead=make.user(f"{name}-lead"), annotators=anns)
    pairs = list(project.pairs.order_by("position"))
    for pair in pairs:
        for who in anns[:2]:
            annotation_services.set_pair_label(pair, who, "paraphrase", base_version=None)
    annotation_services.set_pair_label(pairs[-1], anns[2], "paraphrase", base_version=None)  # takes part
    assert recompute(project.pk) == "stored"  # full: the per-pair state
    updates = []
    real = incremental.update
    monkeypatch.setattr(incremental, "update", lambda *a, **k: updates.append(real(*a, **k)) or updates[-1])
    written, rows = 0, {}
    for n in range(UPDATES):
        annotation_services.set_pair_label(
            pairs[n % 4], anns[2], "paraphrase" if (n // 4) % 2 else "non_paraphrase", base_version=None
        )
        with CaptureQueriesContext(connection) as queries:
            assert recompute(project.pk) == "stored"
        for query in queries.captured_queries:
            match = WRITE.match(query["sql"])
            if match:
                written += len(query["sql"])
                rows[match.group(2)] = rows.get(match.group(2), 0) + 1
    assert len(updates) == UPDATES and all(u is not None for u in updates)  # every one incremental
    return written, rows


def test_incremental_updates_write_bytes_independent_of_the_corpus_size(monkeypatch):
    small, small_rows = _bytes_written_by_updates("small", 5, monkeypatch)
    large, large_rows = _bytes_written_by_updates("large", 50, monkeypatch)
    assert small_rows == large_rows  # the same rows: one pair state per update, no per-corpus row
    assert small_rows["annotator_agreementpairstate"] == UPDATES
    assert large < 1.1 * small, (small, large)  # 10× the pairs, (about) the same bytes written
