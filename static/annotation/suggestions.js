// Suggestions from the keyboard and the pointer: the recommender's phenomena (accept, correct, reject,
// accept all) and the aligner's links (accept, accept all). Shift+U goes to the current layer's first
// suggestion, ↑ ↓ move between them, Enter accepts, E loads a phenomenon suggestion into the selection
// to correct its scopes (Enter then accepts it with them), Delete rejects it, Shift+Y accepts all.
// After an answer is swapped in, the focus goes to the suggestion now at the same place.

import { focusMember } from "./cursor.js";
import { $, $$, editor, tokenEl } from "./dom.js";
import { markEditing } from "./phenomena.js";
import { applySelection } from "./selection.js";
import { state } from "./state.js";

let focusAt = null; // index of the phenomenon suggestion to focus once the answer is swapped in

function phenomenonSuggestions() {
  return $$(".ph-sugg");
}

function linkSuggestions() {
  return $$(".suggestion-list .sugg");
}

/** The projection chosen in the palette goes with an accept (types that need one take it). */
export function fillProjection(form) {
  const checked = $('input[name="projection"]:checked');
  for (const input of form.querySelectorAll("input[data-projection-now]")) input.value = checked ? checked.value : "";
}

/** Shift+U: the keyboard goes to the first suggestion of the current layer. */
export function focusSuggestions() {
  const first = state.mode === "align" ? linkSuggestions()[0] : phenomenonSuggestions()[0];
  if (first) first.focus();
}

/** Shift+Y: accept all suggestions of the current layer. */
export function acceptAll() {
  const button = state.mode === "align" ? $("[data-accept-all]") : $("[data-accept-all-phenomena]");
  if (!button) return;
  if (state.mode !== "align") focusAt = 0;
  button.form.requestSubmit();
}

function act(li, selector) {
  focusAt = phenomenonSuggestions().indexOf(li);
  li.querySelector(selector).form.requestSubmit();
}

/** Keys on a focused phenomenon suggestion; true when the key was one of them. */
export function onSuggestionKey(event, li) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return false;
  const all = phenomenonSuggestions();
  const n = all.indexOf(li);
  if (event.key === "Enter") act(li, "[data-accept-suggestion]");
  else if (event.key === "e" || event.key === "E") startCorrection(li);
  else if (event.key === "Delete" || event.key === "Backspace") act(li, "[data-reject-suggestion]");
  else if (event.key === "ArrowDown" || event.key === "ArrowRight") all[Math.min(n + 1, all.length - 1)].focus();
  else if (event.key === "ArrowUp" || event.key === "ArrowLeft") all[Math.max(n - 1, 0)].focus();
  else return false;
  event.preventDefault();
  return true;
}

/** E (or the Correct button): the suggestion's scopes become the selection, to be changed with the
 * usual keys or clicks; Enter (or the suggestion's type) accepts it with the scopes then selected. */
export function startCorrection(li) {
  const parse = (text) => new Set(text ? text.split(",").map(Number) : []);
  state.sel = { 1: parse(li.dataset.scope1), 2: parse(li.dataset.scope2) };
  state.keys = { 1: new Set(), 2: new Set() };
  state.editing = {
    id: null,
    suggestion: li.dataset.key,
    url: editor.dataset.suggestionAcceptUrl,
    ptype: li.dataset.ptype,
    name: li.dataset.name,
  };
  focusAt = phenomenonSuggestions().indexOf(li);
  markEditing();
  applySelection();
  focusMember(state.sel[1].size ? 1 : 2);
}

/** ↑ ↓ between the aligner's suggested links (Enter on one accepts it: it is a button). */
export function onLinkSuggestionKey(event, button) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return false;
  const all = linkSuggestions();
  const n = all.indexOf(button);
  if (event.key === "ArrowDown" || event.key === "ArrowRight") all[Math.min(n + 1, all.length - 1)].focus();
  else if (event.key === "ArrowUp" || event.key === "ArrowLeft") all[Math.max(n - 1, 0)].focus();
  else return false;
  event.preventDefault();
  return true;
}

/** Note a pointer accept or reject, so the focus stays in the list after the swap. */
export function rememberPlace(form) {
  const li = form.closest(".ph-sugg");
  if (li) focusAt = phenomenonSuggestions().indexOf(li);
}

/** After a swap: focus the suggestion now at the remembered place, or the list of phenomena when
 * none is left. */
export function restoreSuggestionFocus() {
  for (const el of $$(".hl-sugg", document)) el.classList.remove("hl-sugg");
  if (focusAt === null) return;
  const all = phenomenonSuggestions();
  const target = all[Math.min(focusAt, all.length - 1)] || $(".ph-list .ph:last-child") || $("#phenomena");
  focusAt = null;
  if (target) {
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus();
  }
}

/** Hovering or focusing a suggestion highlights its tokens (dashed) and its type in the palette. */
export function highlightSuggestion(li, on) {
  for (const m of [1, 2]) {
    for (const i of li.dataset[`scope${m}`].split(",").filter(Boolean)) {
      tokenEl(m, i)?.classList.toggle("hl-sugg", on);
    }
  }
  $(`.ptype[data-ptype="${li.dataset.ptype}"]`)?.classList.toggle("hl-sugg", on);
}
