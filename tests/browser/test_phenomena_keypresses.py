"""The work the phenomena suggestions save, counted in Chromium: ten held-out ETPC pairs (the first ten
odd pair ids with phenomena) are brought to ETPC's phenomena keyboard-only, (a) from no suggestion and
(b) from the suggestions of a recommender trained on ETPC's even pair ids (as bench/bench_recommender.py
trains it), counting key presses and seconds. Both runs must end exactly at ETPC's phenomena (type and
scopes, checked in the database). The figures go to artifacts/phenomena_keypresses.json, which
bench/bench_suggestion_keys.py prints.

The key plan is the editor's keyboard model (docs/keyboard.md): a phenomenon is made with Shift+1, the
cursor moves (← → Home End) and Space on each scope token of member 1, the same after Shift+2 for member
2, then the type's key. From the suggestions: Shift+U goes to the first one; Enter accepts a suggestion
that is one of ETPC's phenomena (type and both scopes exactly); a suggestion of the type of an ETPC
phenomenon it shares tokens with is corrected (E, the wrong tokens toggled, Enter) when that takes fewer
presses than making the phenomenon; Delete rejects any other (Shift+Y accepts all when every one is
right). The phenomena left are made as in (a). This measures the keys, not the partial-overlap
precision of bench/bench_recommender.py. The test checks that both runs end at ETPC's phenomena; the ratio is a
measurement, printed by the bench script, not asserted."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

import pytest

from annotator.annotation import phenomena_recommender as rec
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Phenomenon, RecommenderRun, Tagset
from annotator.projects import services as project_setup
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


def _walk(cursor: dict[int, int], lengths: dict[int, int], member: int, tokens) -> int:
    """Presses to reach and toggle ``tokens`` of a member the way `Keyboard.go` moves (no pressing)."""
    here, last, presses = cursor[member], lengths[member] - 1, 1  # Shift+1 / Shift+2
    for target in sorted(tokens):
        presses += 1 + min(abs(target - here), 1 + target, 1 + last - target)  # moves, then Space
        here = target
    return presses


def _scratch_cost(keys: Keyboard, wanted: Wanted) -> int:
    _code, s1, s2 = wanted
    return 1 + sum(_walk(keys.cursor, keys.lengths, m, scope) for m, scope in ((1, s1), (2, s2)) if scope)


def _diff(suggested: Wanted, wanted: Wanted) -> dict[int, set[int]]:
    return {m: set(suggested[m]) ^ set(wanted[m]) for m in (1, 2)}


def _correction_cost(keys: Keyboard, suggested: Wanted, wanted: Wanted) -> int:
    diff = _diff(suggested, wanted)
    return 2 + sum(_walk(keys.cursor, keys.lengths, m, d) for m, d in diff.items() if d)  # E … Enter


def _correct(keys: Keyboard, suggested: Wanted, wanted: Wanted) -> None:
    """E on the focused suggestion, toggle the tokens its scopes have wrong, Enter accepts it."""
    keys.press("e")
    for member, tokens in _diff(suggested, wanted).items():
        if tokens:
            keys.press(f"Shift+{member}")
            for i in sorted(tokens):
                keys.go(member, i)
                keys.press(" ")
    keys.press("Enter")
    keys.page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def _closest(suggested: Wanted, open_: set[Wanted]) -> Wanted | None:
    """The open ETPC phenomenon of the suggestion's type sharing most tokens with it, if any."""
    same = [w for w in open_ if w[0] == suggested[0]]
    shared = {w: len(set(w[1]) & set(suggested[1])) + len(set(w[2]) & set(suggested[2])) for w in same}
    best = max(same, key=lambda w: shared[w], default=None)
    return best if best is not None and shared[best] else None


def _annotate(page, live_server, pair, wanted: set[Wanted], shortcuts, codes) -> dict[str, float]:
    """Bring the annotator's phenomena on the pair to ``wanted``: presses, seconds, and how many
    suggestions were accepted, corrected and rejected."""
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
    done = {"accepted": 0, "corrected": 0, "rejected": 0}
    open_ = set(wanted)
    if suggested and len(set(suggested)) == len(suggested) and set(suggested) <= wanted:
        keys.press("Shift+Y")
        saved(page)
        done["accepted"], open_ = len(suggested), wanted - set(suggested)
    elif suggested:
        keys.press("Shift+U")
        for s in suggested:  # the focus moves to the next one after each answer
            target = s if s in open_ else _closest(s, open_)
            if target == s:
                keys.press("Enter")
                saved(page)
                done["accepted"] += 1
            elif target and _correction_cost(keys, s, target) < _scratch_cost(keys, target) + 1:
                _correct(keys, s, target)
                done["corrected"] += 1
            else:
                keys.press("Delete")
                saved(page)
                done["rejected"] += 1
                continue
            open_.discard(target)
    for w in sorted(open_):
        _make(keys, w, shortcuts[w[0]])
    return {"presses": keys.presses, "seconds": time.perf_counter() - started, **done}


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
        project = project_setup.create_project(cast.lead, name=f"Keys {run}", tagset=etpc)
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
        make.signed_in(page, live_server, cast.anna)
        total: dict[str, float] = defaultdict(float)
        for pair, pid in zip(pairs, held_out, strict=True):
            for name, value in _annotate(page, live_server, pair, gold[pid], shortcuts, codes).items():
                total[name] += value
            mine = {
                (code, tuple(s1), tuple(s2))
                for code, s1, s2 in Phenomenon.objects.filter(pair=pair, annotator=cast.anna).values_list(
                    "ptype__code", "scope1", "scope2"
                )
            }
            assert mine == gold[pid], pid
        figures[run] = {
            "key_presses": int(total["presses"]),
            "seconds": round(total["seconds"], 1),
            **{name: int(total[name]) for name in ("accepted", "corrected", "rejected")},
        }
    figures["pairs"] = held_out
    figures["phenomena"] = sum(len(gold[p]) for p in held_out)
    figures["training_seconds"] = round(training_seconds, 1)
    none, suggestions = figures["none"], figures["suggestions"]
    figures["ratio"] = round(suggestions["key_presses"] / none["key_presses"], 3)  # type: ignore[index]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n")
