// What a click does, by the element clicked (one delegated listener on the editor).

import {
  acceptSuggestion,
  commitLinks,
  onMatrixCell,
  setKind,
  setView,
  toggleLink,
  unlinkSelected,
} from "./alignment.js";
import { setCursor } from "./cursor.js";
import { toggleHelp } from "./help.js";
import { setMode } from "./modes.js";
import { toggleClass } from "./palette.js";
import { chooseType, setKeyMode, startEdit } from "./phenomena.js";
import { alignNodes, pickNode } from "./phrase.js";
import { dismissRefused, navigate, pending, reloadPage, retryNow } from "./savequeue.js";
import { selectToken, toggleLine } from "./selection.js";
import { redo, undo } from "./sheet.js";
import { state } from "./state.js";
import { startCorrection } from "./suggestions.js";
import { setZoom } from "./treezoom.js";

/** A token click; in word-alignment mode, a plain click with tokens picked in the other member links. */
function onToken(tok, event) {
  const m = Number(tok.closest(".member").dataset.member);
  const i = Number(tok.dataset.i);
  const additive = event.ctrlKey || event.metaKey;
  const extends_ = event.shiftKey && state.anchor && state.anchor.m === m;
  if (!extends_ && !additive && state.mode === "align" && state.sel[3 - m].size) {
    setCursor(m, i);
    state.sel[m].clear();
    state.sel[m].add(i);
    commitLinks(event.altKey ? "possible" : state.kind);
    return;
  }
  setCursor(m, i);
  selectToken(m, i, { shift: event.shiftKey, additive });
}

function editPhenomenon(li) {
  setMode("phenomena");
  startEdit(li);
}

const BUTTONS = [
  ["[data-undo]", () => undo()],
  ["[data-redo]", () => redo()],
  ["[data-edit]", (el) => editPhenomenon(el.closest(".ph"))],
  ["[data-correct-suggestion]", (el) => startCorrection(el.closest(".ph-sugg"))],
  ["[data-link]", () => commitLinks()],
  ["[data-unlink]", () => unlinkSelected()],
  [".kind-btn", (el) => setKind(el.dataset.kind)],
  [".view-btn", (el) => setView(el.dataset.view)],
  ["[data-phrase]", (el) => alignNodes(el.dataset.phrase)],
  [".key-toggle", () => setKeyMode(!state.keyMode)],
  ["[data-reload]", () => reloadPage()],
  ["[data-retry]", () => retryNow()],
  ["[data-dismiss-refused]", () => dismissRefused()],
  ["[data-close-help]", () => toggleHelp(false)],
  ["button.pgroup-name", (el) => toggleClass(el)],
  ["[data-zoom]", (el) => setZoom(el.dataset.zoom)],
];

export function onClick(event) {
  const t = event.target;
  const tok = t.closest(".tok");
  if (tok?.closest("#members")) return onToken(tok, event);
  const ptype = t.closest(".ptype");
  if (ptype) return chooseType(ptype);
  const tab = t.closest(".mode-tabs .tab");
  if (tab) return setMode(tab.dataset.mode);
  const node = t.closest("svg.tree .node");
  if (node) return pickNode(node);
  const hit = t.closest(".link-lines line");
  if (hit?.classList.contains("suggested-hit")) return acceptSuggestion(hit.dataset.i, hit.dataset.j);
  if (hit) {
    if (event.altKey) return toggleLink(hit.dataset.i, hit.dataset.j);
    return toggleLine(hit.dataset.i, hit.dataset.j);
  }
  const cell = t.closest(".mx-cell");
  if (cell) return onMatrixCell(cell);
  const nav = t.closest("a[data-nav]");
  if (nav && pending()) {
    event.preventDefault();
    return navigate(nav.href);
  }
  for (const [selector, action] of BUTTONS) {
    const el = t.closest(selector);
    if (el) return action(el);
  }
  if (t.id === "help") return toggleHelp(false);
  return undefined;
}
