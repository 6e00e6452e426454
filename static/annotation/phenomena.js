// Phenomena: choosing a type for the selection, key mode, projection, editing an existing phenomenon,
// the palette filter.

import { $, $$, editor, joined, tokenEl } from "./dom.js";
import { hoverLane, markHighlighted } from "./lanes.js";
import { rememberType } from "./palette.js";
import { enqueue } from "./savequeue.js";
import { applySelection, clearSelection } from "./selection.js";
import { senseValue, setSense } from "./sense.js";
import { state } from "./state.js";

function projectionValue() {
  const checked = $('input[name="projection"]:checked');
  return checked ? checked.value : "";
}

export function setProjection(value) {
  const radio = $(`input[name="projection"][value="${value}"]`);
  if (radio) radio.checked = true;
}

export function setKeyMode(on) {
  state.keyMode = on;
  editor.classList.toggle("key-mode", on);
  const button = $(".key-toggle");
  if (button) button.setAttribute("aria-pressed", String(on));
}

function selectionSnapshot() {
  return [1, 2].map((m) => `${joined(state.sel[m])}|${joined(state.keys[m])}`).join("/") + (state.editing?.id ?? "");
}

export function chooseType(button) {
  rememberType(button.dataset.ptype);
  const snapshot = selectionSnapshot();
  const data = {
    ptype: button.dataset.ptype,
    scope1: joined(state.sel[1]),
    scope2: joined(state.sel[2]),
    key1: joined(state.keys[1]),
    key2: joined(state.keys[2]),
    projection: button.dataset.projection === "1" ? projectionValue() : "",
    sense_preserving: senseValue(),
  };
  // A suggestion being corrected is accepted with the selected scopes when its own type is chosen;
  // another type makes a new phenomenon of that type instead.
  const editing = state.editing?.suggestion && state.editing.ptype !== button.dataset.ptype ? null : state.editing;
  if (editing?.suggestion) Object.assign(data, { key: editing.suggestion, corrected: "1" });
  enqueue({
    url: editing ? editing.url : editor.dataset.phenomenaUrl,
    data,
    target: "#phenomena",
    label: `${editing ? "edit of" : "new"} ${button.dataset.name}`,
    onSaved: () => {
      if (selectionSnapshot() === snapshot) {
        state.editing = null;
        setKeyMode(false);
        clearSelection();
      }
    },
  });
}

/** Load a listed phenomenon into the selection for editing (the caller switches to phenomena mode). */
export function startEdit(li) {
  const parse = (text) => new Set(text ? text.split(",").map(Number) : []);
  state.sel = { 1: parse(li.dataset.scope1), 2: parse(li.dataset.scope2) };
  state.keys = { 1: parse(li.dataset.key1), 2: parse(li.dataset.key2) };
  const type = $(`.ptype[data-ptype="${li.dataset.ptype}"]`);
  state.editing = {
    id: li.dataset.ph,
    url: li.dataset.updateUrl,
    ptype: li.dataset.ptype,
    name: type ? type.dataset.name : "phenomenon",
  };
  setProjection(li.dataset.projection || "");
  setSense(li.dataset.sense || "");
  markEditing();
  applySelection();
}

/** Keep the edited phenomenon's entry highlighted; forget the edit once it is gone from the list. */
export function markEditing() {
  for (const li of $$(".ph")) li.classList.toggle("editing", state.editing?.id === li.dataset.ph);
  for (const li of $$(".ph-sugg")) li.classList.toggle("editing", state.editing?.suggestion === li.dataset.key);
  const shown = state.editing?.suggestion
    ? $(`.ph-sugg[data-key="${state.editing.suggestion}"]`)
    : state.editing && $(`.ph[data-ph="${state.editing.id}"]`);
  if (state.editing && !shown) state.editing = null;
  markHighlighted();
}

/** Save the phenomenon being edited with its own type (Enter). */
export function keepEditedType() {
  if (!state.editing) return;
  const button = $(`.ptype[data-ptype="${state.editing.ptype}"]`);
  if (button) chooseType(button);
}

/** Hovering or focusing a listed phenomenon highlights its tokens (keys stronger) and its lane item. */
export function highlightPhenomenon(id, on) {
  const li = $(`.ph[data-ph="${id}"]`);
  if (li) {
    for (const m of [1, 2]) {
      const keys = new Set(li.dataset[`key${m}`].split(",").filter(Boolean));
      const scope = new Set([...li.dataset[`scope${m}`].split(",").filter(Boolean), ...keys]);
      for (const i of scope) tokenEl(m, i)?.classList.toggle(keys.has(i) ? "hlkey" : "hl", on);
    }
  }
  hoverLane(id, on);
}

export function filterPalette(query) {
  const q = query.trim().toLowerCase();
  for (const button of $$(".ptype")) {
    const hay = `${button.dataset.name} ${button.title}`.toLowerCase();
    button.hidden = Boolean(q) && !hay.includes(q) && button.dataset.shortcut !== q;
  }
  for (const group of $$(".pgroup")) group.hidden = !group.querySelector(".ptype:not([hidden])");
}

/** The type whose one-letter shortcut is `key`, among those the palette filter leaves visible. */
export function typeForShortcut(key) {
  return $$(".ptype").find((b) => b.dataset.shortcut === key.toLowerCase() && !b.hidden);
}
