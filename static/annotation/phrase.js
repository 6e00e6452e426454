// Phrase alignment: picking a node in each parse tree and aligning them (or one node to nothing).

import { $, $$, clientMessage, editor, escapeHtml } from "./dom.js";
import { enqueue } from "./savequeue.js";
import { state } from "./state.js";

const treeNode = (t, n) => $(`svg.tree[data-tree="${t}"] .node[data-node="${n}"]`);

export function pickNode(g) {
  const t = Number(g.closest("svg.tree").dataset.tree);
  const n = Number(g.dataset.node);
  state.nodes[t] = state.nodes[t] === n ? null : n;
  applyNodes();
}

function nodeName(t, n) {
  const g = treeNode(t, n);
  return g ? g.querySelector("title").textContent : `node ${n}`;
}

export function applyNodes() {
  for (const t of [1, 2]) {
    for (const g of $$(`svg.tree[data-tree="${t}"] .node`)) {
      const picked = Number(g.dataset.node) === state.nodes[t];
      g.classList.toggle("picked", picked);
      g.setAttribute("aria-selected", String(picked));
    }
  }
  const pick = $(".phrase-pick");
  if (!pick) return;
  const side = (t) =>
    state.nodes[t] === null ? '<span class="muted">—</span>' : `<b>${escapeHtml(nodeName(t, state.nodes[t]))}</b>`;
  pick.innerHTML =
    state.nodes[1] === null && state.nodes[2] === null
      ? '<span class="muted">Pick a node in each tree, or one node and “no counterpart”.</span>'
      : `<span class="mtag">1</span> ${side(1)} <span class="pa-arrow">⟷</span> <span class="mtag">2</span> ${side(2)}`;
}

export function clearNodes() {
  state.nodes = { 1: null, 2: null };
  applyNodes();
}

/** Align the picked nodes: kind "sure" or "possible" takes a node in each tree, "null" exactly one. */
export function alignNodes(kind) {
  const [n1, n2] = [state.nodes[1], state.nodes[2]];
  if (kind === "null") {
    if ((n1 === null) === (n2 === null)) {
      clientMessage("#phrase-message", "“No counterpart” takes exactly one node: pick a node in one tree only.");
      return;
    }
  } else if (n1 === null || n2 === null) {
    clientMessage("#phrase-message", `Pick a node in tree ${n1 === null ? 1 : 2} too, or use “No counterpart”.`);
    return;
  }
  const data = { node1: n1 ?? "", node2: n2 ?? "", kind: kind === "possible" ? "possible" : "sure" };
  enqueue({
    url: editor.dataset.phraseUrl,
    data,
    target: "#phrase-alignments",
    label: "new phrase alignment",
    onSaved: () => {
      state.nodes = { 1: null, 2: null };
    },
  });
}

/** Hovering or focusing a node highlights it and its aligned counterparts in the other tree. */
export function highlightCounterparts(g, on) {
  const t = g.closest("svg.tree").dataset.tree;
  for (const li of $$(`.pa[data-node${t}="${g.dataset.node}"]`)) highlightPhrase(li, on);
}

export function highlightPhrase(li, on) {
  for (const t of [1, 2]) {
    const n = li.dataset[`node${t}`];
    if (n !== "") treeNode(t, n)?.classList.toggle("hl", on);
  }
}
