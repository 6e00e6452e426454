"""Two devices save the same pair at the same moment from the same version (real PostgreSQL).

The sheet row is locked (SELECT … FOR UPDATE) before the version check, so exactly one save wins and
the other gets the 409 conflict: never two changes both based on one version, never a silent overwrite.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from annotator.annotation import services as annotation_services
from annotator.annotation.services import sheet_version
from annotator.models import AlignmentLink, Pair
from tests import make
from tests.make import HTMX, logged_in, url

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_concurrent_saves_from_one_version_one_wins_the_other_conflicts(postgres_required):
    desk = make.desk()
    Pair.objects.filter(pk=desk.pair.pk).update(initial_alignment=[])
    clients = [logged_in(desk.anna), logged_in(desk.anna)]
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    base = sheet_version(desk.pair, desk.anna)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def device(n: int) -> None:
        try:
            barrier.wait()
            data = {"i": str(n), "j": str(n), "base_version": base}
            statuses.append(clients[n].post(url("link-add", desk.pair), data, **HTMX).status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=device, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(statuses) == [200, 409]
    assert AlignmentLink.objects.filter(pair=desk.pair, annotator=desk.anna).count() == 1
    assert sheet_version(desk.pair, desk.anna) == base + 1
