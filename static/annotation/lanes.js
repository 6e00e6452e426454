// Phenomena drawn under the tokens as labelled lanes, the way brat and INCEpTION draw spans.
//
// Each visual line of a member gets its own stack of lanes: every phenomenon with tokens on that line
// is one item there — a bar in the type's colour under its tokens (bracket ends; a discontinuous
// scope's parts joined by a thin dashed line; key elements a thick outlined block) and the type's name
// under the bar. Items are given the lowest lane where they overlap nothing (greedy by start, the
// longest first), counting the label's width too, so neither bars nor labels ever overlap. The drawing
// is aria-hidden: the list of phenomena is what assistive technology reads. The item of the phenomenon
// being edited, or hovered or focused in the list, is highlighted and the others fade.

import { $$, editor } from "./dom.js";
import { state } from "./state.js";

const LANE = 15; // px: one lane (bar row + label row)
const ROOM = 8; // px: horizontal room between two items sharing a lane
const BELOW = 5; // px: between a line's tokens and its first lane

const parse = (text) => new Set(text ? text.split(",").map(Number) : []);

function listedPhenomena() {
  return $$(".ph-list .ph").map((li) => ({
    id: li.dataset.ph,
    name: li.dataset.name || "",
    colour: li.dataset.colour || "",
    scope: { 1: parse(li.dataset.scope1), 2: parse(li.dataset.scope2) },
    keys: { 1: parse(li.dataset.key1), 2: parse(li.dataset.key2) },
  }));
}

/** The member's tokens grouped by visual line (flex lines share their top), in order. */
function visualLines(tokens) {
  const lines = [];
  let top = null;
  for (const tok of tokens) {
    const y = Math.round(tok.offsetTop);
    if (top === null || Math.abs(y - top) > 2) {
      lines.push([]);
      top = y;
    }
    lines.at(-1).push(tok);
  }
  return lines;
}

/** Runs of consecutive token indices: the parts of a (possibly discontinuous) scope on one line. */
function runs(indices) {
  const out = [];
  for (const i of indices) {
    if (out.length && out.at(-1).at(-1) === i - 1) out.at(-1).push(i);
    else out.push([i]);
  }
  return out;
}

function span(cls, parent) {
  const el = document.createElement("span");
  el.className = cls;
  parent.append(el);
  return el;
}

function place(el, left, width) {
  el.style.left = `${left}px`;
  el.style.width = `${Math.max(width, 2)}px`;
}

/** One phenomenon's item on one visual line (positions relative to the member's box). */
function buildItem(layer, ph, m, line, box) {
  const onLine = line.filter((tok) => ph.scope[m].has(Number(tok.dataset.i)) || ph.keys[m].has(Number(tok.dataset.i)));
  if (!onLine.length) return null;
  const rect = new Map(onLine.map((tok) => [Number(tok.dataset.i), tok.getBoundingClientRect()]));
  const indices = [...rect.keys()];
  const left = rect.get(indices[0]).left - box.left;
  const right = rect.get(indices.at(-1)).right - box.left;
  const item = document.createElement("div");
  item.className = "lane-item";
  item.dataset.ph = ph.id;
  item.style.setProperty("--c", ph.colour);
  const parts = runs(indices);
  parts.forEach((part, n) => {
    const a = rect.get(part[0]).left - box.left;
    const b = rect.get(part.at(-1)).right - box.left;
    place(span("lane-bar", item), a - left, b - a);
    if (n > 0) {
      const before = rect.get(parts[n - 1].at(-1)).right - box.left;
      place(span("lane-join", item), before - left, a - before);
    }
  });
  for (const i of indices) {
    if (!ph.keys[m].has(i)) continue;
    const r = rect.get(i);
    place(span("lane-key", item), r.left - box.left - left, r.width);
  }
  const label = span("lane-label", item);
  label.textContent = ph.name;
  layer.append(item);
  return { item, label, left, right };
}

/** Give each item the lowest lane in which it overlaps no other item (bars and labels both). */
function assignLanes(items, width) {
  for (const it of items) {
    const w = it.label.offsetWidth;
    it.labelLeft = Math.max(0, Math.min(it.left, width - w));
    it.start = Math.min(it.left, it.labelLeft);
    it.end = Math.max(it.right, it.labelLeft + w);
  }
  items.sort((a, b) => a.start - b.start || b.end - a.end);
  const ends = [];
  for (const it of items) {
    let lane = ends.findIndex((end) => end + ROOM <= it.start);
    if (lane < 0) lane = ends.length;
    ends[lane] = it.end;
    it.lane = lane;
  }
  return ends.length;
}

function drawMember(member, phenomena) {
  const layer = member.querySelector(".lanes");
  const tokens = Array.from(member.querySelectorAll(".tok"));
  for (const tok of tokens) tok.style.marginBottom = "";
  if (!layer) return;
  layer.replaceChildren();
  if (!phenomena.length || state.mode !== "phenomena") return;
  const m = Number(member.dataset.member);
  const box = member.getBoundingClientRect();
  const lines = visualLines(tokens).map((line) => {
    const items = phenomena.map((ph) => buildItem(layer, ph, m, line, box)).filter(Boolean);
    return { line, items, lanes: assignLanes(items, box.width) };
  });
  // Room under each line for its lanes; then the lines' final positions place the items.
  for (const { line, lanes } of lines) {
    if (lanes) for (const tok of line) tok.style.marginBottom = `${lanes * LANE + BELOW + 2}px`;
  }
  const top = member.getBoundingClientRect().top;
  for (const { line, items } of lines) {
    const bottom = Math.max(...line.map((tok) => tok.getBoundingClientRect().bottom)) - top;
    for (const it of items) {
      it.item.style.top = `${bottom + BELOW + it.lane * LANE}px`;
      place(it.item, it.left, it.right - it.left);
      it.label.style.left = `${it.labelLeft - it.left}px`;
    }
  }
  markHighlighted();
}

/** Draw the phenomena of the list under both members (after every swap, resize and mode change). */
export function drawLanes() {
  const members = document.getElementById("members");
  if (!members) return;
  // The columns of word alignment (alignment.js) are for the links only.
  if (state.mode !== "align") members.classList.remove("columns");
  const phenomena = listedPhenomena();
  for (const member of $$(".member", members)) drawMember(member, phenomena);
  // The palette gives up the height the lanes take (editor.css), so the list stays in view.
  if (state.mode === "phenomena") editor.style.setProperty("--members-h", `${members.offsetHeight}px`);
}

let hovered = null;

/** Hovering or focusing a listed phenomenon highlights its item (and the others fade). */
export function hoverLane(id, on) {
  if (on) hovered = id;
  else if (hovered === id) hovered = null;
  markHighlighted();
}

/** The phenomenon being edited stays highlighted, and the one hovered or focused in the list. */
export function markHighlighted() {
  const ids = new Set([state.editing?.id, hovered].filter(Boolean));
  for (const item of $$(".lane-item")) item.classList.toggle("hl", ids.has(item.dataset.ph));
  editor.classList.toggle("lane-focus", ids.size > 0 && $$(".lane-item.hl").length > 0);
}
