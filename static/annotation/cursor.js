// The token cursor: the keyboard's way through the tokens of the two members.
//
// Each member's token strip is a listbox with one tab stop (its cursor token, tabindex 0). ← → move the
// cursor, Home/End jump to the ends, ↑ ↓ go to the other member's token nearest below/above, Space adds
// or removes the cursor's token to/from the selection (the scope, or the key elements in key mode), and
// Shift+← → extend the selection from the anchor. In word-alignment mode S and P link the selected
// tokens of both members as sure or possible (↵ links with the current kind).

import { $$, tokenEl } from "./dom.js";
import { activeSet, applySelection, range } from "./selection.js";
import { state } from "./state.js";

const count = (m) => $$(`.member-${m} .tok`).length;

/** Make token i of member m the member's tab stop (without moving focus). */
export function setCursor(m, i) {
  const n = count(m);
  if (!n) return;
  state.cursor[m] = Math.max(0, Math.min(i, n - 1));
  applyCursor();
}

/** Re-apply the tab stops after the strips were swapped in again. */
export function applyCursor() {
  for (const m of [1, 2]) {
    const n = count(m);
    if (state.cursor[m] >= n) state.cursor[m] = Math.max(0, n - 1);
    for (const tok of $$(`.member-${m} .tok`)) {
      tok.tabIndex = Number(tok.dataset.i) === state.cursor[m] ? 0 : -1;
    }
  }
}

function focusToken(m, i) {
  setCursor(m, i);
  tokenEl(m, state.cursor[m])?.focus();
}

/** The other member's token whose centre is nearest to this token's centre. */
function nearestInOther(m, i) {
  const other = 3 - m;
  const here = tokenEl(m, i)?.getBoundingClientRect();
  if (!here) return state.cursor[other];
  const x = here.left + here.width / 2;
  let best = state.cursor[other];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const tok of $$(`.member-${other} .tok`)) {
    const box = tok.getBoundingClientRect();
    const distance = Math.abs(box.left + box.width / 2 - x) + Math.abs(box.top - here.top) / 4;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = Number(tok.dataset.i);
    }
  }
  return best;
}

function toggleAtCursor(m, i) {
  const set = activeSet(m);
  if (set.has(i)) set.delete(i);
  else set.add(i);
  state.anchor = { m, i };
  applySelection();
}

function extendTo(m, from, to) {
  if (!state.anchor || state.anchor.m !== m) state.anchor = { m, i: from };
  const set = activeSet(m);
  for (const k of range(state.anchor.i, to)) set.add(k);
  applySelection();
}

const MOVES = {
  ArrowLeft: (m, i) => [m, i - 1],
  ArrowRight: (m, i) => [m, i + 1],
  Home: (m) => [m, 0],
  End: (m) => [m, count(m) - 1],
  ArrowUp: (m, i) => (m === 2 ? [1, nearestInOther(2, i)] : [m, i]),
  ArrowDown: (m, i) => (m === 1 ? [2, nearestInOther(1, i)] : [m, i]),
};

/** Put the keyboard focus on member m's cursor token (Shift+1 / Shift+2). */
export function focusMember(m) {
  focusToken(m, state.cursor[m]);
}

/** Keys on a focused token; returns true when the key was the cursor's. */
export function onTokenKey(event, tok) {
  const m = Number(tok.closest(".member").dataset.member);
  const i = Number(tok.dataset.i);
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  if (event.key === " ") {
    event.preventDefault();
    toggleAtCursor(m, i);
    return true;
  }
  const move = MOVES[event.key];
  if (!move) return false;
  event.preventDefault();
  const [to, j] = move(m, i);
  focusToken(to, j);
  if (event.shiftKey && to === m) extendTo(m, i, state.cursor[m]);
  return true;
}
