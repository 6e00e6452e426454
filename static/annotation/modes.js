// The editor's modes (phenomena, word alignment, phrase alignment) and what follows every swap.

import { buildMatrix, drawLines } from "./alignment.js";
import { applyCursor } from "./cursor.js";
import { $$, editor } from "./dom.js";
import { drawLanes } from "./lanes.js";
import { markEditing, setKeyMode } from "./phenomena.js";
import { applyNodes } from "./phrase.js";
import { renderStatus } from "./savequeue.js";
import { applySelection, clearSelection } from "./selection.js";
import { state } from "./state.js";
import { restoreSuggestionFocus } from "./suggestions.js";
import { applyZoom } from "./treezoom.js";

const MODES = ["phenomena", "align", "phrase"];

function availableModes() {
  return $$(".mode-tabs .tab").map((tab) => tab.dataset.mode);
}

export function setMode(mode) {
  const modes = availableModes();
  const chosen = modes.includes(mode) ? mode : modes[0] || "phenomena";
  if (chosen !== state.mode) {
    clearSelection();
    state.editing = null;
    setKeyMode(false);
  }
  state.mode = chosen;
  for (const m of MODES) editor.classList.toggle(`mode-${m}`, m === chosen);
  for (const tab of $$(".mode-tabs .tab")) tab.setAttribute("aria-selected", String(tab.dataset.mode === chosen));
  localStorage.setItem("editor-mode", chosen);
  drawLanes();
  drawLines();
  buildMatrix();
  applySelection();
  applyZoom();
}

/** Re-apply the client-side state to freshly swapped partials. */
export function afterSwap() {
  applyCursor();
  markEditing();
  setMode(state.mode);
  applyNodes();
  renderStatus();
  restoreSuggestionFocus();
}
