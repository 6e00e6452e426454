"""Data for the lead's tools: a project where three annotators partly agree (made through the services).

Pairs (tokens "The film opened on Friday ." / "Film premiered Friday ."):
- p1, p4…: everyone agrees (label paraphrase, Same polarity opened→premiered, the same links);
- p2: the labels differ (ben says non-paraphrase) and ben has no phenomenon;
- p3: the phenomena differ (ben: Semantics over "opened on"; cat: Same polarity, global) and ben
  misses the link film→Film.
"""

from __future__ import annotations

import contextlib
from typing import Any

from annotator.annotation import services as annotation_services
from annotator.models import ParaphraseType, Project
from tests import factories

LINKS = [(1, 0), (2, 1), (4, 2), (5, 3)]


def types(project: Project) -> dict[str, ParaphraseType]:
    return {t.name: t for t in ParaphraseType.objects.filter(tagset=project.tagset)}


def annotate(
    project: Project, user: Any, source_id: str, *, label: str, phenomena: list[tuple], links: list
) -> None:
    pair = project.pairs.get(source_id=source_id)
    t = types(project)
    annotation_services.set_pair_label(pair, user, label, base_version=None)
    for name, s1, s2, projection in phenomena:
        annotation_services.add_phenomenon(
            pair, user, t[name], scope1=s1, scope2=s2, projection=projection, base_version=None
        )
    if links:
        annotation_services.set_links(pair, user, links, sure=True, base_version=None)


AGREE = {"label": "paraphrase", "phenomena": [("Same polarity", [2], [1], "local")], "links": LINKS}
PLAN: dict[str, dict[str, dict[str, Any]]] = {
    "p2": {
        "ann": AGREE,
        "ben": {"label": "non_paraphrase", "phenomena": [], "links": LINKS},
        "cat": AGREE,
    },
    "p3": {
        "ann": AGREE,
        "ben": {
            "label": "paraphrase",
            "phenomena": [("Semantics", [2, 3], [1], "local")],
            "links": LINKS[1:],
        },
        "cat": {"label": "paraphrase", "phenomena": [("Same polarity", [2], [1], "global")], "links": LINKS},
    },
}


def world(n_pairs: int = 4, **fields: Any) -> dict[str, Any]:
    """lead, ann, ben, cat (annotators), outsider, admin and the annotated project."""
    lead = factories.user("lead")
    ann, ben, cat = factories.user("ann"), factories.user("ben"), factories.user("cat")
    other_lead = factories.user("otherlead")
    admin = factories.user("boss", staff=True)
    project = factories.project_with_pairs(
        "Lead tools", n_pairs=n_pairs, lead=lead, annotators=(ann, ben, cat), **fields
    )
    other = factories.project_with_pairs("Other", n_pairs=1, lead=other_lead, annotators=(ann,))
    users = {"ann": ann, "ben": ben, "cat": cat}
    for n in range(1, n_pairs + 1):
        sid = f"p{n}"
        for name, user in users.items():
            annotate(project, user, sid, **PLAN.get(sid, {}).get(name, AGREE))
    return {
        "project": project,
        "other": other,
        "lead": lead,
        "other_lead": other_lead,
        "admin": admin,
        **users,
    }


FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@contextlib.contextmanager
def eager_tasks():
    """Run Celery tasks in-process (as the embedded default does) even when REDIS_URL points at a broker,
    for tests of pages that enqueue a task but have no worker of their own."""
    from celery import current_app

    before = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    try:
        yield
    finally:
        current_app.conf.task_always_eager = before
