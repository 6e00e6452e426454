// Word alignment: linking the selected tokens, unlinking, the sure/possible kind, and the two views
// (lines drawn between the members, or a matrix of cells).

import { $, $$, clientMessage, editor, escapeHtml, joined, linksData, tokenEl } from "./dom.js";
import { enqueue } from "./savequeue.js";
import { applySelection, clearSelection } from "./selection.js";
import { state } from "./state.js";

const SVG = "http://www.w3.org/2000/svg";

export function commitLinks(kind) {
  if (!state.sel[1].size || !state.sel[2].size) {
    clientMessage("#link-message", "Select at least one token in member 1 and one in member 2.");
    return;
  }
  const data = { i: joined(state.sel[1]), j: joined(state.sel[2]), kind: kind || state.kind };
  const n = state.sel[1].size * state.sel[2].size;
  const label = `${n} new ${data.kind} link${n > 1 ? "s" : ""}`;
  enqueue({ url: editor.dataset.linkAddUrl, data, target: "#links", label });
  clearSelection();
}

function removeLinks(i, j, label) {
  enqueue({ url: editor.dataset.linkRemoveUrl, data: { i, j }, target: "#links", label });
}

export function unlinkSelected() {
  if (state.lineSel.size) {
    for (const key of state.lineSel) {
      const [i, j] = key.split("-");
      removeLinks(i, j, "removed link");
    }
  } else if (state.sel[1].size && state.sel[2].size) {
    removeLinks(joined(state.sel[1]), joined(state.sel[2]), "removed links");
  } else {
    clientMessage("#link-message", "Select a link (click its line) or tokens on both sides to unlink.");
    return;
  }
  clearSelection();
}

export function toggleLink(i, j) {
  enqueue({ url: editor.dataset.linkToggleUrl, data: { i, j }, target: "#links", label: "sure/possible switch" });
}

/** Accept one automatic suggestion as a sure link (nothing is the annotator's until they accept it). */
export function acceptSuggestion(i, j) {
  enqueue({ url: editor.dataset.linkAcceptUrl, data: { i, j }, target: "#links", label: "accepted suggestion" });
}

function drawLine(svg, coords, cls, i, j) {
  const line = document.createElementNS(SVG, "line");
  for (const [k, v] of Object.entries(coords)) line.setAttribute(k, v.toFixed(1));
  line.setAttribute("class", cls);
  line.dataset.i = i;
  line.dataset.j = j;
  svg.append(line);
}

/** Whether the member's tokens fit on one visual line (the first and the last share their top). */
function oneLine(m) {
  const toks = $$(`.member-${m} .tok`);
  return toks.length < 2 || Math.abs(toks[0].offsetTop - toks.at(-1).offsetTop) < 2;
}

/**
 * The lines view never draws a link across text. When both sentences fit on one line each, links go
 * from member 1's tokens down to member 2's across the gap between them; when either wraps, the
 * members are laid out as two columns of one token per row (member 1 right-aligned on the left,
 * member 2 on the right) and the links run in the gutter between the columns, as bitext aligners do.
 * The keys stay the same in both layouts (← → through a member, ↑ ↓ to the other one), so a window's
 * width never changes what a key does.
 */
function chooseLayout(members) {
  const lines = state.mode === "align" && state.view === "lines";
  members.classList.remove("columns");
  const columns = lines && !(oneLine(1) && oneLine(2));
  members.classList.toggle("columns", columns);
  return columns;
}

export function drawLines() {
  const svg = $(".link-lines");
  const members = $("#members");
  if (!svg || !members) return;
  svg.replaceChildren();
  const columns = chooseLayout(members);
  if (state.mode !== "align" || state.view !== "lines") return;
  const box = members.getBoundingClientRect();
  svg.setAttribute("width", box.width);
  svg.setAttribute("height", box.height);
  const data = linksData();
  const ends = (i, j) => {
    const a = tokenEl(1, i);
    const b = tokenEl(2, j);
    if (!a || !b) return null;
    const ra = a.getBoundingClientRect();
    const rb = b.getBoundingClientRect();
    if (columns) {
      return {
        x1: ra.right + 3 - box.left,
        y1: ra.top + ra.height / 2 - box.top,
        x2: rb.left - 3 - box.left,
        y2: rb.top + rb.height / 2 - box.top,
      };
    }
    return {
      x1: ra.left + ra.width / 2 - box.left,
      y1: ra.bottom + 1 - box.top,
      x2: rb.left + rb.width / 2 - box.left,
      y2: rb.top - 1 - box.top,
    };
  };
  // Suggestions first (underneath): dotted amber, a click accepts one as a sure link; the links below
  // the project's confidence threshold are drawn faintly.
  for (const [i, j, likely = true] of data.suggested || []) {
    const coords = ends(i, j);
    if (!coords) continue;
    drawLine(svg, coords, "hit suggested-hit", i, j);
    drawLine(svg, coords, `link suggested${likely ? "" : " faint"}`, i, j);
  }
  for (const [i, j, sure] of data.links) {
    const coords = ends(i, j);
    if (!coords) continue;
    for (const cls of ["hit", `link ${sure ? "sure" : "possible"}`]) drawLine(svg, coords, cls, i, j);
  }
  applySelection();
}

/** Hovering or focusing a token in word alignment highlights its links and the tokens they reach. */
export function highlightLinks(tok, on) {
  if (state.mode !== "align") return;
  const m = Number(tok.closest(".member").dataset.member);
  const end = m === 1 ? "i" : "j";
  for (const line of $$(`.link-lines line.link:not(.suggested)[data-${end}="${tok.dataset.i}"]`)) {
    line.classList.toggle("hl", on);
    const other = m === 1 ? tokenEl(2, line.dataset.j) : tokenEl(1, line.dataset.i);
    other?.classList.toggle("linked", on);
  }
}

export function buildMatrix() {
  const box = $(".link-matrix");
  if (!box) return;
  box.hidden = state.view !== "matrix";
  if (box.hidden) return;
  const data = linksData();
  const kind = new Map(data.links.map(([i, j, sure]) => [`${i}-${j}`, sure ? "sure" : "possible"]));
  const initial = new Map((data.suggested || []).map(([i, j, likely = true]) => [`${i}-${j}`, likely]));
  const head = data.tokens2
    .map((t, j) => `<th class="mx-col" data-j="${j}"><span>${escapeHtml(t)}</span></th>`)
    .join("");
  const rows = data.tokens1.map((t, i) => {
    const cells = data.tokens2.map((_, j) => {
      const key = `${i}-${j}`;
      const suggestion = initial.has(key) ? (initial.get(key) ? " init" : " init faint") : "";
      const cls = `mx-cell ${kind.get(key) || ""}${suggestion}`;
      return `<td class="${cls}" data-i="${i}" data-j="${j}" title="${escapeHtml(t)} – ${escapeHtml(data.tokens2[j])}"></td>`;
    });
    return `<tr><th class="mx-row" data-i="${i}">${escapeHtml(t)}</th>${cells.join("")}</tr>`;
  });
  const other = state.kind === "sure" ? "possible" : "sure";
  box.innerHTML = `<table class="matrix"><thead><tr><th class="mx-corner"><span>1 ↓ · 2 →</span></th>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>
    <p class="muted small">Click a cell: empty → ${state.kind} → ${other} → empty. Amber dots mark suggestions of the automatic aligner: clicking one accepts it.</p>`;
}

/** A matrix cell cycles: empty → the current kind → the other kind → empty; a suggestion is accepted. */
export function onMatrixCell(cell) {
  const { i, j } = cell.dataset;
  const linked = cell.classList.contains("sure") || cell.classList.contains("possible");
  if (cell.classList.contains("init") && !linked) return acceptSuggestion(i, j);
  if (cell.classList.contains("sure") || cell.classList.contains("possible")) {
    const other = cell.classList.contains("sure") ? "possible" : "sure";
    if (other === state.kind) removeLinks(i, j, "removed link");
    else toggleLink(i, j);
  } else {
    const data = { i, j, kind: state.kind };
    enqueue({ url: editor.dataset.linkAddUrl, data, target: "#links", label: `new ${state.kind} link` });
  }
}

export function setKind(kind) {
  state.kind = kind;
  editor.classList.toggle("kind-sure", kind === "sure");
  editor.classList.toggle("kind-possible", kind === "possible");
  buildMatrix();
}

export function setView(view) {
  state.view = view;
  editor.classList.toggle("view-lines", view === "lines");
  editor.classList.toggle("view-matrix", view === "matrix");
  localStorage.setItem("editor-view", view);
  drawLines();
  buildMatrix();
}
