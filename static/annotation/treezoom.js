// Zooming the parse trees: "fit" scales each tree to its box (not below MIN_FIT, scroll for the rest);
// + and − step from there. The trees sit side by side and each box scrolls (pans) on its own.

import { $$ } from "./dom.js";

const MIN_FIT = 0.6;
const STEP = 1.25;
let zoom = null; // null: fit

function fitScale(svg) {
  const wrap = svg.closest(".tree-wrap");
  const width = Number(svg.getAttribute("width"));
  if (!wrap || !width || !wrap.clientWidth) return null; // not laid out yet (a hidden tab): no scale
  const room = wrap.clientWidth - 40;
  return Math.max(MIN_FIT, Math.min(1, room / width));
}

// Both trees are drawn at one scale (the smaller of their fits), so neither looks tiny beside the
// other; a tree whose box is not laid out yet keeps its size until the boxes are shown.
export function applyZoom() {
  const trees = $$("svg.tree");
  const fits = trees.map(fitScale);
  if (zoom === null && fits.some((fit) => fit === null)) return;
  const scale = zoom ?? Math.min(...fits, 1);
  for (const svg of trees) {
    svg.style.width = `${Number(svg.getAttribute("width")) * scale}px`;
    svg.style.height = `${Number(svg.getAttribute("height")) * scale}px`;
  }
}

export function setZoom(how) {
  const current = zoom ?? Math.min(...$$("svg.tree").map((svg) => fitScale(svg) ?? 1), 1);
  if (how === "fit") zoom = null;
  else zoom = Math.max(0.4, Math.min(2.5, how === "in" ? current * STEP : current / STEP));
  applyZoom();
}
