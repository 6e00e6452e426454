"""Annotators labelling the same pair at the same moment (real PostgreSQL): each label save moves the
agreement sums by its difference, and the sums still equal the ones rebuilt from the labels, because the
save locks the pair's row before it reads the other annotators' labels (`annotator.agreement.sums`)."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from annotator.agreement import sums
from annotator.annotation import services as annotation_services
from tests import make

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_concurrent_label_saves_of_one_pair_keep_the_sums_exact(postgres_required):
    anns = tuple(make.user(name) for name in ("ana", "bo", "cy"))
    project = make.project_with_pairs(n_pairs=1, lead=make.user("lead"), annotators=anns)
    pair = project.pairs.get()
    rounds = 12
    barrier = threading.Barrier(len(anns))
    errors: list[BaseException] = []

    def annotator(k: int) -> None:
        try:
            for r in range(rounds):
                barrier.wait(30)
                label = ("paraphrase", "non_paraphrase", "")[(r + k) % 3]
                annotation_services.set_pair_label(pair, anns[k], label, base_version=None)
        except BaseException as exc:  # reported below
            errors.append(exc)
            barrier.abort()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=annotator, args=(k,)) for k in range(len(anns))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)


def test_concurrent_link_saves_of_one_pair_keep_the_word_alignment_sums_exact(postgres_required):
    from annotator.agreement import pair_parts

    anns = tuple(make.user(name) for name in ("ana", "bo", "cy"))
    project = make.project_with_pairs(n_pairs=1, lead=make.user("lead"), annotators=anns)
    pair = project.pairs.get()
    rounds = 8
    barrier = threading.Barrier(len(anns))
    errors: list[BaseException] = []

    def annotator(k: int) -> None:
        try:
            for r in range(rounds):
                barrier.wait(30)
                link = [((r + k) % 6, r % 4)]
                if r % 3 == 2:
                    annotation_services.remove_links(pair, anns[k], link, base_version=None)
                else:
                    annotation_services.set_links(pair, anns[k], link, sure=r % 2 == 0, base_version=None)
        except BaseException as exc:  # reported below
            errors.append(exc)
            barrier.abort()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=annotator, args=(k,)) for k in range(len(anns))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)
    assert pair_parts.kept_parts(project.pk) == pair_parts.project_parts(project.pk)


def test_concurrent_phenomenon_saves_of_one_pair_keep_the_phenomena_sums_exact(postgres_required):
    from annotator.agreement import phenomena_parts
    from annotator.models import Phenomenon

    anns = tuple(make.user(name) for name in ("ana", "bo", "cy"))
    project = make.project_with_pairs(n_pairs=1, lead=make.user("lead"), annotators=anns)
    pair = project.pairs.get()
    same = make.types(project)["Same polarity"]
    rounds = 8
    barrier = threading.Barrier(len(anns))
    errors: list[BaseException] = []

    def annotator(k: int) -> None:
        try:
            for r in range(rounds):
                barrier.wait(30)
                mine = Phenomenon.objects.filter(pair=pair, annotator=anns[k]).order_by("pk").first()
                if r % 3 == 2 and mine is not None:
                    annotation_services.delete_phenomenon(mine, base_version=None)
                else:
                    annotation_services.add_phenomenon(
                        pair,
                        anns[k],
                        same,
                        scope1=[(r + k) % 6],
                        scope2=[r % 4],
                        projection="local",
                        base_version=None,
                    )
        except BaseException as exc:  # reported below
            errors.append(exc)
            barrier.abort()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=annotator, args=(k,)) for k in range(len(anns))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)
    assert phenomena_parts.kept_parts(project.pk) == phenomena_parts.project_parts(project.pk)
