"""Benchmark of the dashboard's status poll (issue 16): CPU per poll that finds nothing new (304).

    .venv/bin/python bench/bench_poll.py [--polls 500]

A throwaway SQLite database (VAR_DIR in a temporary directory, no broker), a project of 100 pairs × 3
annotators with a stored snapshot; a signed-in lead polls `#snapshot-status` through Django's test
client (which adds its own overhead, so the figure is an upper bound) with the ETag of the previous
answer. Prints the median and p95 CPU time of this process per poll, for 304 polls and for full (200)
polls. Target: ≤ 2 ms CPU for a poll that finds nothing new.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
TARGET_MS = 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=500)
    args = parser.parse_args()
    os.environ["VAR_DIR"] = tempfile.mkdtemp(prefix="bench-poll-")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    import django  # Django is set up here, after the environment above chose the database

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from annotator.accounts import services as accounts
    from annotator.agreement.computation import recompute
    from annotator.annotation import services as annotation_services
    from annotator.corpus import projects
    from annotator.models import Pair, Tagset
    from annotator.projects import services as project_setup

    call_command("migrate", verbosity=0)
    lead = accounts.create_account("lead", "bench-password-1")
    anns = [accounts.create_account(f"ann{n}", "bench-password-1") for n in range(3)]
    project = project_setup.create_project(
        lead, name="Poll", tagset=Tagset.objects.filter(builtin=True).first()
    )
    pairs = [
        Pair.objects.create(
            project=project,
            position=n,
            source_id=f"p{n}",
            text1="a b c",
            text2="a b d",
            tokens1=["a", "b", "c"],
            tokens2=["a", "b", "d"],
        )
        for n in range(100)
    ]
    projects.assign_pairs(project, anns, pairs)
    for n, pair in enumerate(pairs):
        for k, who in enumerate(anns):
            annotation_services.set_pair_label(
                pair, who, "paraphrase" if (n + k) % 4 else "non_paraphrase", base_version=None
            )
    recompute(project.pk)
    client = Client()
    client.force_login(lead)
    url = reverse("annotator:dashboard", args=[project.pk])
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "snapshot-status"}
    first = client.get(url, {"seen": "1"}, **headers)
    etag = first["ETag"]

    def measure(extra: dict[str, str], expect: int) -> list[float]:
        cpu = []
        for _ in range(args.polls):
            started = time.process_time()
            response = client.get(url, {"seen": "1"}, **headers, **extra)
            cpu.append(1000 * (time.process_time() - started))
            if response.status_code != expect:
                raise SystemExit(f"expected HTTP {expect}, got {response.status_code}")
        return cpu

    if os.environ.get("BENCH_PROFILE"):  # where a 304 poll spends its CPU
        import cProfile
        import pstats

        with cProfile.Profile() as profile:
            measure({"HTTP_IF_NONE_MATCH": etag}, 304)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
    not_modified = measure({"HTTP_IF_NONE_MATCH": etag}, 304)
    full = measure({}, 200)
    print(f"Status poll, SQLite, Django test client, {args.polls} polls each (CPU ms of this process)")
    print(f"{'answer':<22} {'median':>8} {'p95':>8}")
    for name, values in (("304 nothing new", not_modified), ("200 full status line", full)):
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        print(f"{name:<22} {statistics.median(values):8.2f} {p95:8.2f}")
    print(f"target: ≤ {TARGET_MS:.0f} ms CPU for a poll that finds nothing new")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
