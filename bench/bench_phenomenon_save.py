"""Phenomenon saves in the service: p50 wall and CPU time and statements per save.

A project of 20 pairs (the tests' small pairs) annotated by 5 annotators with 2 phenomena each per pair;
then 100 saves, cycling over pairs and annotators: a phenomenon created, edited, deleted in turn
(`annotation.services`), each in its own transaction as in a request. Runs on a fresh test database of
the configured one (SQLite in memory by default; PostgreSQL with DATABASE_URL). The recompute a save
enqueues after its commit is left out (the save's own cost is measured).

    PYTHONPATH=. python bench/bench_phenomenon_save.py [--saves 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import django


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--saves", type=int, default=100)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    django.setup()
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    import annotator.agreement.changes as changes

    changes.enqueue_recompute = lambda project_id: True  # the save alone: no recompute after it
    setup_test_environment()
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from annotator.annotation import services
        from annotator.models import Phenomenon
        from tests import make

        anns = tuple(make.user(f"b{k}") for k in range(5))
        project = make.project_with_pairs("Bench", n_pairs=20, lead=make.user("lead"), annotators=anns)
        pairs = list(project.pairs.order_by("position"))
        types = make.types(project)
        same, diathesis = types["Same polarity"], types["Diathesis"]
        for pair in pairs:
            for k, who in enumerate(anns):
                services.add_phenomenon(
                    pair, who, same, scope1=[k % 5], scope2=[k % 4], projection="local", base_version=None
                )
                services.add_phenomenon(
                    pair, who, diathesis, scope1=[1, 2], scope2=[k % 3], key1=[1], base_version=None
                )
        wall: list[float] = []
        cpu: list[float] = []
        counts: list[int] = []
        for n in range(args.saves):
            pair, who = pairs[n % len(pairs)], anns[(n // len(pairs)) % len(anns)]
            step = n % 3
            mine = Phenomenon.objects.filter(pair=pair, annotator=who).order_by("-pk").first()
            assert mine is not None
            w0, c0 = time.perf_counter(), time.process_time()
            with CaptureQueriesContext(connection) as queries, transaction.atomic():
                if step == 0:
                    services.add_phenomenon(
                        pair, who, same, scope1=[5], scope2=[3], projection="global", base_version=None
                    )
                elif step == 1:
                    services.update_phenomenon(mine, base_version=None, scope1=[4, 5])
                else:
                    services.delete_phenomenon(mine, base_version=None)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
            counts.append(len(queries.captured_queries))
        print(
            f"{connection.vendor}: {args.saves} phenomenon saves, p50 wall {statistics.median(wall) * 1e3:.2f} ms, "
            f"p50 CPU {statistics.median(cpu) * 1e3:.2f} ms, statements p50 {statistics.median(counts):.0f}"
        )
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
