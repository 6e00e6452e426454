"""The work the phenomena suggestions save, counted in Chromium: ten held-out ETPC pairs (the first ten
odd pair ids with phenomena) are brought to ETPC's phenomena keyboard-only, (a) from no suggestion and
(b) from the suggestions of a recommender trained on ETPC's even pair ids (as bench/bench_recommender.py
trains it), counting key presses and seconds. Both runs must end exactly at ETPC's phenomena (type and
scopes, checked in the database). The figures go to artifacts/phenomena_keypresses.json, which
bench/bench_suggestion_keys.py prints.

The key plan is the editor's keyboard model (docs/keyboard.md): a phenomenon is made with Shift+1, the
cursor moves (← → Home End) and Space on each scope token of member 1, the same after Shift+2 for member
2, then the type's key. From the suggestions: Shift+U goes to the first one, Enter accepts a suggestion
that is one of ETPC's phenomena (type and scopes), Delete rejects any other (Shift+Y accepts all when
every one is right); the phenomena left are made as in (a). A suggestion counts as right only when its
type and both scopes are exactly ETPC's: this measures the keys, not the partial-overlap precision of
bench/bench_recommender.py. The test checks that both runs end at ETPC's phenomena; the ratio is a
measurement, printed by the bench script, not asserted."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

import pytest

from annotator.core import phenomena_recommender as rec
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Phenomenon, RecommenderRun, Tagset
from tests import make
from tests.browser.test_keypresses_saved import Keyboard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "phenomena_keypresses.json"
N_PAIRS = 10
Wanted = tuple[str, tuple[int, ...], tuple[int, ...]]  # type code, scope 1, scope 2


def saved(page):
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def _etpc():
    """ETPC's phenomena per pair (type code, scopes; deduplicated), the MRPC tokens, and the pair ids."""
    from bench.bench_recommender import load

    _names, tokens, rows = load()
    gold: dict[str, set[Wanted]] = defaultdict(set)
    for pid, code, s1, s2, _file in rows:
        gold[pid].add((code, tuple(sorted(s1)), tuple(sorted(s2))))
    return gold, tokens, sorted(gold, key=int)


def _make(keys: Keyboard, wanted: Wanted, shortcut: str) -> None:
    """One phenomenon from the keyboard: its scope tokens in each member, then the type's key."""
    _code, s1, s2 = wanted
    for member, scope in ((1, s1), (2, s2)):
        if not scope:
            continue
        keys.press(f"Shift+{member}")
        for i in scope:
            keys.go(member, i)
            keys.press(" ")
    keys.press(shortcut)
    keys.page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def _annotate(page, live_server, pair, wanted: set[Wanted], shortcuts, codes) -> tuple[int, float, int, int]:
    """Bring the annotator's phenomena on the pair to ``wanted``; (presses, seconds, accepted, rejected)."""
    page.goto(f"{live_server.url}/projects/{pair.project_id}/pairs/{pair.pk}/")
    page.wait_for_selector("#members .tok")
    page.wait_for_selector("html.js")
    keys = Keyboard(page, {1: len(pair.tokens1), 2: len(pair.tokens2)})
    started = time.perf_counter()
    suggested = []
    for key in page.eval_on_selector_all(".ph-sugg", "els => els.map(el => el.dataset.key)"):
        ptype, s1, s2 = key.split("|")
        to_tuple = lambda text: tuple(int(i) for i in text.split(",") if i)  # noqa: E731
        suggested.append((codes[int(ptype)], to_tuple(s1), to_tuple(s2)))
    accepted = rejected = 0
    if suggested and all(s in wanted for s in suggested):
        keys.press("Shift+Y")
        saved(page)
        accepted = len(suggested)
    elif suggested:
        keys.press("Shift+U")
        for s in suggested:  # the focus moves to the next one after each answer
            keys.press("Enter" if s in wanted else "Delete")
            saved(page)
            accepted, rejected = accepted + (s in wanted), rejected + (s not in wanted)
    for w in sorted(wanted - set(suggested)):
        _make(keys, w, shortcuts[w[0]])
    return keys.presses, time.perf_counter() - started, accepted, rejected


@pytest.mark.corpora
def test_phenomena_suggestions_save_key_presses_and_reach_etpc(page, live_server, corpora_dir):
    gold, tokens, ids = _etpc()
    held_out = [p for p in ids if int(p) % 2 == 1][:N_PAIRS]
    train_ids = [p for p in ids if int(p) % 2 == 0]
    trained_at = time.perf_counter()
    model = rec.train(
        rec.pair_inputs([(p, *tokens[p], None) for p in train_ids]),
        {p: [rec.Annotated(c, frozenset(s1), frozenset(s2)) for c, s1, s2 in gold[p]] for p in train_ids},
        rec.ETPC_ROLES,
    )
    training_seconds = time.perf_counter() - trained_at
    cast = make.cast()
    etpc = Tagset.objects.get(name=ETPC_NAME)
    figures: dict[str, object] = {}
    for run in ("none", "suggestions"):
        project = projects.create_project(f"Keys {run}", tagset=etpc, leads=[cast.lead])
        pairs = [projects.add_pair(project, p, tokens1=tokens[p][0], tokens2=tokens[p][1]) for p in held_out]
        projects.assign_pairs(project, [cast.anna], pairs)
        if run == "suggestions":  # the trained model, stored as the project's current version
            RecommenderRun.objects.create(
                project=project,
                version=1,
                status=RecommenderRun.Status.SUCCEEDED,
                model=rec.dumps(model),
                report={"summary": f"trained on {len(train_ids)} even ETPC pairs"},
            )
        types = {t.code: t for t in etpc.types.all()}
        shortcuts = {code: t.shortcut for code, t in types.items()}
        codes = {t.pk: code for code, t in types.items()}
        page.context.clear_cookies()
        make.sign_in(page, live_server, cast.anna)
        presses, seconds, accepted, rejected = 0, 0.0, 0, 0
        for pair, pid in zip(pairs, held_out, strict=True):
            n, s, a, r = _annotate(page, live_server, pair, gold[pid], shortcuts, codes)
            presses, seconds, accepted, rejected = presses + n, seconds + s, accepted + a, rejected + r
            mine = {
                (code, tuple(s1), tuple(s2))
                for code, s1, s2 in Phenomenon.objects.filter(pair=pair, annotator=cast.anna).values_list(
                    "ptype__code", "scope1", "scope2"
                )
            }
            assert mine == gold[pid], pid
        figures[run] = {
            "key_presses": presses,
            "seconds": round(seconds, 1),
            "accepted": accepted,
            "rejected": rejected,
        }
    figures["pairs"] = held_out
    figures["phenomena"] = sum(len(gold[p]) for p in held_out)
    figures["training_seconds"] = round(training_seconds, 1)
    none, suggestions = figures["none"], figures["suggestions"]
    figures["ratio"] = round(suggestions["key_presses"] / none["key_presses"], 3)  # type: ignore[index]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n")
