// The tokens selected in each member (scope, or key elements in key mode) and the picked link lines.

import { $, $$, escapeHtml, words } from "./dom.js";
import { state } from "./state.js";

export function range(a, b) {
  const out = [];
  for (let k = Math.min(a, b); k <= Math.max(a, b); k += 1) out.push(k);
  return out;
}

/** The set a token click changes: key elements in key mode, the scope otherwise. */
export function activeSet(m) {
  return state.mode === "phenomena" && state.keyMode ? state.keys[m] : state.sel[m];
}

/** Click on a token: Ctrl toggles it, Shift extends from the anchor, a plain click selects only it. */
export function selectToken(m, i, { shift = false, additive = false } = {}) {
  const set = activeSet(m);
  if (shift && state.anchor && state.anchor.m === m) {
    for (const k of range(state.anchor.i, i)) set.add(k);
  } else if (additive) {
    if (set.has(i)) set.delete(i);
    else set.add(i);
    state.anchor = { m, i };
  } else {
    const only = set.size === 1 && set.has(i);
    set.clear();
    if (!only) set.add(i);
    state.anchor = { m, i };
  }
  applySelection();
}

export function clearSelection() {
  for (const m of [1, 2]) {
    state.sel[m].clear();
    state.keys[m].clear();
  }
  state.anchor = null;
  state.lineSel.clear();
  applySelection();
}

export function applySelection() {
  for (const m of [1, 2]) {
    for (const tok of $$(`.member-${m} .tok`)) {
      const i = Number(tok.dataset.i);
      tok.classList.toggle("sel", state.sel[m].has(i));
      tok.classList.toggle("keysel", state.keys[m].has(i));
      tok.setAttribute("aria-selected", String(state.sel[m].has(i) || state.keys[m].has(i)));
    }
  }
  for (const line of $$(".link-lines line.link")) {
    line.classList.toggle("picked", state.lineSel.has(`${line.dataset.i}-${line.dataset.j}`));
  }
  const info = $(".selection-info");
  if (!info) return;
  const parts = [];
  for (const m of [1, 2]) {
    if (state.sel[m].size) parts.push(`<b>${m}</b> ${escapeHtml(words(m, state.sel[m]))}`);
    if (state.keys[m].size) parts.push(`<b>key ${m}</b> ${escapeHtml(words(m, state.keys[m]))}`);
  }
  const editing = state.editing
    ? `Editing <strong>${escapeHtml(state.editing.name)}</strong> — pick a type or press ↵ to keep it; Esc cancels. `
    : "";
  const hint = editing ? "" : '<span class="muted">Select tokens, then pick a type.</span>';
  info.innerHTML = editing + (parts.length ? `Selected: ${parts.join(" · ")}` : hint);
  info.classList.toggle("editing", Boolean(state.editing));
}

/** Pick or unpick a drawn link line (for unlinking). */
export function toggleLine(i, j) {
  const key = `${i}-${j}`;
  if (state.lineSel.has(key)) state.lineSel.delete(key);
  else state.lineSel.add(key);
  applySelection();
}
