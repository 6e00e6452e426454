"""Building the demo: users, the two demo projects and three annotators who partly agree.

The variations are deterministic rules over the reference annotation in `demo_data`, so every start
shows the same, meaningful agreement numbers.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from annotator.accounts import services as accounts
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.core.aligner import identical_token_alignment as align
from annotator.core.tagsets import VILA_NAME
from annotator.core.trees import parse_tree
from annotator.corpus import projects
from annotator.corpus.projects import create_unit
from annotator.demo.data import EVALUATION_UNITS, GUIDELINES, PAIRS
from annotator.evaluation import services as evaluation
from annotator.models import Assignment, Pair, ParaphraseType, Project, Tagset
from annotator.projects import services as project_setup

log = logging.getLogger(__name__)

TYPES_PROJECT = "Demo: paraphrase types"
EVALUATION_PROJECT = "Demo: substitution evaluation"
PROJECT_NAMES = [TYPES_PROJECT, EVALUATION_PROJECT]
ANNOTATORS = ["anna", "ben", "chloe"]
RATERS = ["anna", "ben", "chloe", "dan"]
USERS: list[tuple[str, str, str]] = [
    ("admin", "admin-demo-pass", "admin (staff)"),
    ("lena", "lena-demo-pass", "project lead of both demo projects"),
    ("anna", "anna-demo-pass", "annotator and rater"),
    ("ben", "ben-demo-pass", "annotator and rater"),
    ("chloe", "chloe-demo-pass", "annotator and rater"),
    ("dan", "dan-demo-pass", "rater"),
]


def ensure_users() -> dict[str, Any]:
    User = get_user_model()
    users = {}
    for username, password, _role in USERS:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = accounts.create_account(username, password, is_admin=username == "admin")
        users[username] = user
    return users


def parse_links(text: str) -> list[tuple[int, int, bool]]:
    links = []
    for item in text.split():
        sure = "-" in item
        i, j = item.split("-" if sure else "?")
        links.append((int(i), int(j), sure))
    return links


def phenomena_of(who: str, n: int, reference: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Annotator variants: anna follows the reference; ben misses some and flips projections; chloe
    narrows scopes and sometimes picks another type."""
    result = [tuple(p) for p in reference]
    if who == "ben":
        if n % 3 == 1 and len(result) > 2:
            del result[-2]
        if n % 4 == 0:
            result = [
                (p[0], p[1], p[2], {"local": "global", "global": "local"}.get(p[3], p[3]), p[4], p[5])
                if k == 0
                else p
                for k, p in enumerate(result)
            ]
    elif who == "chloe":
        if n % 2 == 0:
            result = [
                (p[0], p[1][1:], p[2], p[3], p[4][:0] if p[4] and p[4][0] == p[1][0] else p[4], p[5])
                if k == 0 and len(p[1]) > 1
                else p
                for k, p in enumerate(result)
            ]
        if n % 5 == 3 and result and result[0][0] not in ("Identical", "Addition/deletion"):
            first = result[0]
            result[0] = ("Semantics", first[1], first[2], "global", [], [])
        if n % 3 == 0 and result:
            result.append(("Change of order", result[-1][1][:1], result[-1][2][:1], "local", [], []))
    return result


def links_of(who: str, n: int, reference: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    links = list(reference)
    if who == "ben":
        if n % 2 == 0 and len(links) > 2:
            del links[-2]
        if n % 3 == 0:
            i, j, _ = links[0]
            links[0] = (i, j, False)
    elif who == "chloe":
        if n % 3 == 2:
            links.append((0, 1, False))
        links = [(i, j, True) for i, j, _ in links] if n % 4 == 1 else links
    return list({(i, j): (i, j, s) for i, j, s in links}.values())


def first_node(nodes: list[dict[str, Any]], label: str) -> int | None:
    return next((k for k, node in enumerate(nodes) if node["label"] == label and node["depth"] == 1), None)


def phrase_alignments_of(who: str, n: int, pair: Pair) -> list[tuple[int | None, int | None, bool]]:
    np1, np2 = first_node(pair.nodes1, "NP"), first_node(pair.nodes2, "NP")
    vp1, vp2 = first_node(pair.nodes1, "VP"), first_node(pair.nodes2, "VP")
    aligned: list[tuple[int | None, int | None, bool]] = [(0, 0, True)]
    if np1 is not None and np2 is not None:
        aligned.append((np1, np2, True))
    if vp1 is not None and vp2 is not None:
        aligned.append((vp1, vp2, who != "ben" or n % 2 == 0))
    if who == "ben" and n % 3 == 0 and vp1 is not None:
        aligned = [a for a in aligned if a[0] != vp1] + [(vp1, None, True)]
    if who == "chloe" and n % 4 == 2:
        aligned = aligned[:1]
    return aligned


def identical_token_alignment(tokens1: list[str], tokens2: list[str]) -> list[list[int]]:

    return [list(link) for link in align(tokens1, tokens2)]


def load_types_project(users: dict[str, Any]) -> Project:
    project = project_setup.create_project(
        users["lena"],
        name=TYPES_PROJECT,
        tagset=Tagset.objects.get(name=VILA_NAME),
        description="Fourteen short English sentence pairs written for this demo, annotated by three annotators "
        "with Vila et al.'s paraphrase types, word alignments and phrase alignments.",
        guidelines=GUIDELINES,
        layer_phrase_alignment=True,
        phase=Project.Phase.AGREEMENT,
        phenomena_for=Project.PhenomenaFor.PARAPHRASES,
    )
    types = {t.name: t for t in ParaphraseType.objects.filter(tagset=project.tagset)}
    pairs = []
    for n, spec in enumerate(PAIRS):
        tokens1, tokens2 = parse_tree(spec["tree1"]).leaves(), parse_tree(spec["tree2"]).leaves()
        pairs.append(
            projects.add_pair(
                project,
                spec["id"],
                tokens1=tokens1,
                tokens2=tokens2,
                tree1=spec["tree1"],
                tree2=spec["tree2"],
                corpus_labels={"demo_reference": spec["label"]},
                initial_alignment=identical_token_alignment(tokens1, tokens2),
                initial_alignment_source="identical-tokens",
                position=n,
            )
        )
    annotators = [users[name] for name in ANNOTATORS]
    projects.assign_pairs(project, annotators, pairs, phase=Project.Phase.AGREEMENT)
    for who in ANNOTATORS:
        annotate_as(users[who], who, pairs, types)
    return project


def annotate_as(user: Any, who: str, pairs: list[Pair], types: dict[str, ParaphraseType]) -> None:
    for n, (pair, spec) in enumerate(zip(pairs, PAIRS, strict=True)):
        if who == "chloe" and n >= 11:
            continue  # chloe has not reached the last pairs yet
        label = spec["label"]
        if (who, n) in {("ben", 7), ("chloe", 6)}:
            label = "non_paraphrase" if label == "paraphrase" else "paraphrase"
        annotation_services.set_pair_label(pair, user, label, base_version=None)
        for name, s1, s2, projection, key1, key2 in phenomena_of(who, n, spec["phenomena"]):
            annotation_services.add_phenomenon(
                pair,
                user,
                types[name],
                scope1=s1,
                scope2=s2,
                projection=projection,
                key1=key1,
                key2=key2,
                base_version=None,
                check_open=False,  # the demo's disagreements include phenomena on a flipped label
            )
        links = links_of(who, n, parse_links(spec["links"]))
        for sure in (True, False):
            block = [(i, j) for i, j, s in links if s is sure]
            if block:
                annotation_services.set_links(pair, user, block, sure=sure, base_version=None)
        for node1, node2, sure in phrase_alignments_of(who, n, pair):
            annotation_services.add_phrase_alignment(pair, user, node1, node2, sure=sure, base_version=None)
        status = Assignment.Status.DONE
        if who == "ben" and n == 12:
            status = Assignment.Status.POSTPONED
        Assignment.objects.filter(annotator=user, pair=pair).update(
            status=status,
            started_at=timezone.now(),
            finished_at=timezone.now() if status == "done" else None,
            time_spent=60 + 17 * n + 11 * len(who),
        )


def load_evaluation_project(users: dict[str, Any]) -> Project:

    project = project_setup.create_project(
        users["lena"],
        name=EVALUATION_PROJECT,
        description="Phrase substitutions in sentences written for this demo, rated in two steps: "
        "grammaticality first, then meaning against the original.",
        guidelines="Rate grammaticality without looking for the original; then compare the meaning.",
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
        layer_evaluation=True,
        phase=Project.Phase.AGREEMENT,
    )
    for spec in EVALUATION_UNITS:
        start = spec["source"].index(spec["phrase"])
        create_unit(
            project,
            spec["id"],
            spec["source"],
            spec["phrase"],
            start,
            start + len(spec["phrase"]),
            substitutions=spec["substitutions"],
        )
    raters = [users[name] for name in RATERS]
    evaluation.assign_units(project, raters, r=3, seed=0)
    rate_demo_units(project, users)
    return project


# Labels by candidate kind: lexicon candidates are mostly fine, system-X ones mostly not; raters differ a little.
DEMO_G = {"lexicon-A": "Perfect", "lexicon-B": "Awkward", "system-X": "Major Problem"}
DEMO_M = {"lexicon-A": "Equivalent", "lexicon-B": "Ignorable Change", "system-X": "Significantly Different"}
RATER_SHIFT_G = {"ben": {"Awkward": "Minor Problem"}, "dan": {"Major Problem": "Awkward"}}
RATER_SHIFT_M = {
    "chloe": {"Ignorable Change": "Significantly Different"},
    "dan": {"Equivalent": "Missing Info."},
}


def rate_demo_units(project: Project, users: dict[str, Any]) -> None:

    for assignment in Assignment.objects.filter(project=project, unit__isnull=False).select_related("unit"):
        who = assignment.annotator.username
        unit, rater = assignment.unit, assignment.annotator
        if unit is None:  # not a rating assignment (none is: unit__isnull=False)
            continue
        if who == "chloe" and unit.source_id == "u04":
            continue  # chloe still has one unit to do
        items = list(unit.items.all())
        for item in items:
            g = DEMO_G[item.candidate_source]
            evaluation.record_judgement(
                item, rater, "grammaticality", label=RATER_SHIFT_G.get(who, {}).get(g, g)
            )
        evaluation.submit_grammaticality(unit, rater)
        for item in items:
            m = DEMO_M[item.candidate_source]
            evaluation.record_judgement(item, rater, "meaning", label=RATER_SHIFT_M.get(who, {}).get(m, m))
        evaluation.finalize_unit(unit, rater)


def load_demo() -> list[str]:
    """Create whichever demo projects are missing; returns their names."""
    users = ensure_users()
    created = []
    if not Project.objects.filter(name=TYPES_PROJECT).exists():
        load_types_project(users)
        created.append(TYPES_PROJECT)
    if not Project.objects.filter(name=EVALUATION_PROJECT).exists():
        load_evaluation_project(users)
        created.append(EVALUATION_PROJECT)
    return created


def recompute_demo_agreement() -> None:
    """Compute the first snapshots now so dashboards show numbers on first start."""

    for project in Project.objects.filter(name__in=PROJECT_NAMES):
        recompute(project.pk)
