// The annotation editor (native ES modules, no build step). This entry module wires the page's events
// to the modules: selection.js (tokens), phenomena.js, alignment.js (word links), phrase.js (tree
// nodes), keys.js (shortcuts), savequeue.js (ordered, versioned, retried saves), sheet.js (forms, undo),
// timespent.js (active time), suggestions.js (accepting and rejecting suggestions).

import { drawLines, highlightLinks, setKind, setView } from "./alignment.js";
import { $, editor } from "./dom.js";
import { onKey } from "./keys.js";
import { drawLanes } from "./lanes.js";
import { afterSwap, setMode } from "./modes.js";
import { applyFolded, renderRecent } from "./palette.js";
import { filterPalette, highlightPhenomenon } from "./phenomena.js";
import { highlightCounterparts, highlightPhrase } from "./phrase.js";
import { onClick } from "./pointer.js";
import { onAfterSwap, renderStatus, startSaveQueue } from "./savequeue.js";
import { commentLeft, commentTyped, submitSave } from "./sheet.js";
import { state } from "./state.js";
import { fillProjection, highlightSuggestion, rememberPlace } from "./suggestions.js";
import { startTimeSpent } from "./timespent.js";
import { applyZoom } from "./treezoom.js";

function onSubmit(event) {
  const form = event.target;
  if (!form.matches("form[data-save]")) return;
  event.preventDefault();
  fillProjection(form);
  rememberPlace(form);
  submitSave(form);
}

function onInput(event) {
  if (event.target.matches(".palette-filter")) filterPalette(event.target.value);
  if (event.target.matches("#comment textarea")) commentTyped(event.target);
}

/** Hovering or focusing a listed phenomenon or phrase alignment highlights it in the text/trees. */
function highlighter(on) {
  return (event) => {
    const li = event.target.closest(".ph");
    if (li && !li.contains(event.relatedTarget)) highlightPhenomenon(li.dataset.ph, on);
    const sugg = event.target.closest(".ph-sugg");
    if (sugg && !sugg.contains(event.relatedTarget)) highlightSuggestion(sugg, on);
    const pa = event.target.closest(".pa");
    if (pa && !pa.contains(event.relatedTarget)) highlightPhrase(pa, on);
    const tok = event.target.closest?.("#members .tok");
    if (tok && !tok.contains(event.relatedTarget)) highlightLinks(tok, on);
    const node = event.target.closest?.("svg.tree .node");
    if (node && !node.contains(event.relatedTarget)) highlightCounterparts(node, on);
  };
}

function init() {
  document.documentElement.classList.add("js");
  onAfterSwap(afterSwap);
  startSaveQueue();
  startTimeSpent();
  editor.addEventListener("click", onClick);
  editor.addEventListener("mousedown", (event) => {
    if (event.shiftKey && event.target.closest(".tok")) event.preventDefault();
  });
  document.getElementById("help").addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("submit", onSubmit);
  editor.addEventListener("change", (event) => {
    if (event.target.matches("#pair-label input[type=radio]")) event.target.form.requestSubmit();
  });
  editor.addEventListener("input", onInput);
  editor.addEventListener("focusout", (event) => {
    if (event.target.matches("#comment textarea")) commentLeft(event.target);
  });
  for (const [name, on] of [
    ["mouseover", true],
    ["mouseout", false],
    ["focusin", true],
    ["focusout", false],
  ]) {
    editor.addEventListener(name, highlighter(on));
  }
  // Redrawn in the next frame, and only when the width changed: the lanes change the height.
  let width = null;
  new ResizeObserver(([entry]) => {
    if (entry.contentRect.width === width) return;
    width = entry.contentRect.width;
    requestAnimationFrame(() => {
      drawLanes();
      drawLines();
      applyZoom();
    });
  }).observe($(".ed-main") || editor);
  state.view = localStorage.getItem("editor-view") === "matrix" ? "matrix" : "lines";
  setKind("sure");
  setView(state.view);
  setMode(localStorage.getItem("editor-mode") || "phenomena");
  applyFolded();
  renderRecent();
  renderStatus();
  // Token widths change if a font arrives after the first drawing.
  document.fonts?.ready.then(() => {
    drawLanes();
    drawLines();
  });
}

if (editor) init();
