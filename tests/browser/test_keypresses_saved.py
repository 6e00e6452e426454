"""The work the default suggestions save, counted in Chromium: ten hand-aligned MRPC pairs (the first
ten of the gold's held-aside part) are brought to their gold links keyboard-only, (a) from no
suggestion and (b) from the default aligner's suggestions (trained on the full MRPC), and the key
presses and seconds are counted. Both runs must end exactly at the gold links (checked in the
database). The figures go to artifacts/keypresses.json, which bench/bench_aligner.py prints.

The key plan is the editor's keyboard model (static/annotation/cursor.js, keys.js): Shift+1 / Shift+2 put
the cursor in a member, ← → Home End move it, Space selects the cursor's token, S / P link the
selected tokens of both members as sure / possible, Delete unlinks them; "Accept all" is reached with
Tab and pressed with Enter. Links are grouped by their member-1 token (one selection, one key for all
its links of one kind)."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

import pytest

from annotator.core.statistical_aligner import train_and_align_scored
from annotator.corpus import projects
from annotator.corpus.imports.mrpc import parse_mrpc
from annotator.models import AlignmentLink
from annotator.projects import services as project_setup
from tests import make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "tests" / "fixtures" / "mrpc_gold_alignments.json"
OUT = ROOT / "artifacts" / "keypresses.json"
N_PAIRS = 10


class Keyboard:
    """Presses keys on the page and counts them; tracks each member's cursor as the editor does."""

    def __init__(self, page, lengths):
        self.page, self.presses, self.lengths = page, 0, lengths
        self.cursor = {1: 0, 2: 0}
        self.accept_all = 0  # presses spent reaching and pressing "Accept all"

    def press(self, key):
        self.page.keyboard.press(key)
        self.presses += 1

    def go(self, member, target):
        """Move member's cursor to target the shortest way (arrows, or Home / End then arrows)."""
        here, last = self.cursor[member], self.lengths[member] - 1
        ways = [(abs(target - here), None, here), (1 + target, "Home", 0), (1 + last - target, "End", last)]
        _cost, jump, start = min(ways, key=lambda way: way[0])
        if jump:
            self.press(jump)
        step = "ArrowRight" if target > start else "ArrowLeft"
        for _ in range(abs(target - start)):
            self.press(step)
        self.cursor[member] = target

    def group(self, i, js, key):
        """Select token i of member 1 and the tokens js of member 2, then press key (s, p or Delete)."""
        self.press("Shift+1")
        self.go(1, i)
        self.press(" ")
        self.press("Shift+2")
        for j in sorted(js):
            self.go(2, j)
            self.press(" ")
        self.press(key)
        self.page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def _by_first(links):
    groups = defaultdict(set)
    for i, j in links:
        groups[i].add(j)
    return sorted(groups.items())


def _align(page, live_server, project, pair, gold, suggested):
    """Bring the annotator's links on the pair from its suggestions to gold; (presses, of them the ones
    spent on "Accept all", seconds)."""
    page.goto(f"{live_server.url}/projects/{project.pk}/pairs/{pair.pk}/")
    page.wait_for_selector("#members .tok")
    keys = Keyboard(page, {1: len(pair.tokens1), 2: len(pair.tokens2)})
    started = time.perf_counter()
    keys.press("Shift+A")  # word-alignment mode
    sure = {tuple(link) for link in gold["sure"]}
    possible = {tuple(link) for link in gold["possible"]}
    have: set[tuple[int, int]] = set()
    if suggested:
        page.evaluate("document.activeElement && document.activeElement.blur()")
        for _ in range(400):
            keys.press("Tab")
            if page.evaluate("document.activeElement?.matches('[data-accept-all]') ?? false"):
                break
        else:
            raise AssertionError("Accept all was not reached with Tab")
        keys.press("Enter")
        keys.accept_all = keys.presses - 1  # the Tabs, Enter and Shift+A
        page.wait_for_selector('#save-status.is-saved[data-pending="0"]')
        page.wait_for_function("document.querySelectorAll('.link-lines line.link.suggested').length === 0")
        have = set(suggested)
    for i, js in _by_first(have - sure - possible):
        keys.group(i, js, "Delete")
    for i, js in _by_first(sure - have):
        keys.group(i, js, "s")
    for i, js in _by_first(possible):  # a suggestion accepted as sure becomes possible too
        keys.group(i, js, "p")
    seconds = time.perf_counter() - started
    return keys.presses, keys.accept_all, seconds


@pytest.mark.corpora
def test_default_suggestions_save_key_presses_and_reach_the_gold(page, live_server, corpora_dir):
    gold = [g for g in json.loads(GOLD.read_text())["pairs"] if g["part"] == "held-aside"][:N_PAIRS]
    corpus = []
    for name in ("msr_paraphrase_train.txt", "msr_paraphrase_test.txt"):
        corpus += parse_mrpc((corpora_dir / "mrpc" / name).read_bytes(), name).records
    where = {r.source_id: n for n, r in enumerate(corpus)}
    scored = train_and_align_scored([(r.tokens1, r.tokens2) for r in corpus])
    cast = make.cast()
    figures = {}
    for run in ("none", "default"):
        project = project_setup.create_project(cast.lead, name=f"Keys {run}", tagset=make.vila())
        pairs = []
        for g in gold:
            links = [[i, j] for i, j, _c in scored[where[g["id"]]]] if run == "default" else []
            pairs.append(
                projects.add_pair(
                    project,
                    g["id"],
                    tokens1=g["tokens1"],
                    tokens2=g["tokens2"],
                    initial_alignment=links,
                    initial_alignment_source="posterior/per-kind" if run == "default" else "none",
                )
            )
        projects.assign_pairs(project, [cast.anna], pairs)
        page.context.clear_cookies()
        make.signed_in(page, live_server, cast.anna)
        presses = accept_all = 0
        seconds = 0.0
        for pair, g in zip(pairs, gold, strict=True):
            suggested = [tuple(link) for link in pair.initial_alignment]
            n, tabs, s = _align(page, live_server, project, pair, g, suggested)
            presses, accept_all, seconds = presses + n, accept_all + tabs, seconds + s
            mine = set(
                AlignmentLink.objects.filter(pair=pair, annotator=cast.anna).values_list("i", "j", "sure")
            )
            want = {(i, j, True) for i, j in g["sure"]} | {(i, j, False) for i, j in g["possible"]}
            assert mine == want, g["id"]
        figures[run] = {
            "key_presses": presses,
            "accept_all_presses": accept_all,
            "seconds": round(seconds, 1),
        }
    figures["pairs"] = [g["id"] for g in gold]
    figures["ratio"] = round(figures["default"]["key_presses"] / figures["none"]["key_presses"], 3)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n")
    assert figures["default"]["key_presses"] < figures["none"]["key_presses"]
