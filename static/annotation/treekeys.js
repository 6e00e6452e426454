// Tree nodes from the keyboard: each parse tree is a tree widget with one tab stop; ↑ goes to the
// parent, ↓ to the first child, ← → to the previous/next sibling, Home to the root, Space picks the node
// (as a click does) and ↵ aligns the picked nodes.

import { $, $$ } from "./dom.js";
import { pickNode } from "./phrase.js";

const nodesOf = (t) => $$(`svg.tree[data-tree="${t}"] .node`);
const nodeEl = (t, n) => $(`svg.tree[data-tree="${t}"] .node[data-node="${n}"]`);
const parentOf = (g) => (g.dataset.parent === "" ? null : Number(g.dataset.parent));

function children(t, n) {
  return nodesOf(t).filter((g) => parentOf(g) === n);
}

function neighbour(g, step) {
  const t = Number(g.closest("svg.tree").dataset.tree);
  const siblings = children(t, parentOf(g));
  return siblings[siblings.indexOf(g) + step] ?? null;
}

function focusNode(g) {
  if (!g) return;
  const t = g.closest("svg.tree").dataset.tree;
  for (const other of nodesOf(t)) other.setAttribute("tabindex", other === g ? "0" : "-1");
  g.focus();
}

/** Put the keyboard focus on tree t's current node (its tab stop). */
export function focusTree(t) {
  const nodes = nodesOf(t);
  focusNode(nodes.find((g) => g.getAttribute("tabindex") === "0") ?? nodes[0]);
}

const MOVES = {
  ArrowUp: (g, t) => (parentOf(g) === null ? null : nodeEl(t, parentOf(g))),
  ArrowDown: (g, t) => children(t, Number(g.dataset.node))[0] ?? null,
  ArrowLeft: (g) => neighbour(g, -1),
  ArrowRight: (g) => neighbour(g, 1),
  Home: (_g, t) => nodesOf(t)[0] ?? null,
};

/** Keys on a focused tree node; returns true when the key was the tree's. */
export function onNodeKey(event, g) {
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  if (event.key === " ") {
    event.preventDefault();
    pickNode(g);
    return true;
  }
  const move = MOVES[event.key];
  if (!move) return false;
  event.preventDefault();
  focusNode(move(g, Number(g.closest("svg.tree").dataset.tree)));
  return true;
}
