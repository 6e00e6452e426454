// The annotation editor's one module (no build step): token selection, key mode, word alignment
// (lines and matrix), picking tree nodes, keyboard shortcuts, and the save queue.
//
// Why a queue of our own instead of hx-post: every save must carry the sheet version the page shows,
// saves must reach the server in the order they were made, and a save that fails because the network
// is down must be kept and re-sent, never dropped. The queue sends one save at a time with the current
// version, and hands the server's HTML to htmx's own swap (htmx.swap), so partials and out-of-band
// swaps work exactly as with hx-post.

const editor = document.getElementById("editor");

const state = {
  mode: "phenomena",
  view: "lines",
  kind: "sure",
  sel: { 1: new Set(), 2: new Set() },
  keys: { 1: new Set(), 2: new Set() },
  anchor: null,
  keyMode: false,
  editing: null,
  lineSel: new Set(),
  nodes: { 1: null, 2: null },
};

const saves = { items: [], busy: false, halted: null, attempt: 0, timer: null, retryAt: 0, lastError: "" };
let leaveTo = null;
let undoneText = "";

// ---- small helpers ---------------------------------------------------------------------------------

const $ = (sel, root = editor) => root.querySelector(sel);
const $$ = (sel, root = editor) => Array.from(root.querySelectorAll(sel));
const sorted = (set) => Array.from(set).sort((a, b) => a - b);
const joined = (set) => sorted(set).join(",");
const tokenEl = (m, i) => $(`.member-${m} .tok[data-i="${i}"]`);

function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"];
  } catch {
    const match = document.cookie.match(/csrftoken=([^;]+)/);
    return match ? match[1] : "";
  }
}

function linksData() {
  const node = document.getElementById("links-data");
  return node ? JSON.parse(node.textContent) : { links: [], initial: [], suggested: [], tokens1: [], tokens2: [] };
}

function words(m, set) {
  const data = linksData();
  const tokens = m === 1 ? data.tokens1 : data.tokens2;
  const fromDom = (i) => (tokenEl(m, i) ? tokenEl(m, i).firstChild.textContent : String(i));
  return sorted(set).map((i) => tokens[i] ?? fromDom(i)).join(" ");
}

// ---- the save queue --------------------------------------------------------------------------------

function enqueue(item) {
  if (saves.halted && saves.halted !== "error") {
    renderStatus();
    return;
  }
  if (item.key) {
    const waiting = saves.items.findIndex((other, n) => other.key === item.key && (n > 0 || !saves.busy));
    if (waiting >= 0) saves.items.splice(waiting, 1);
  }
  saves.items.push(item);
  renderStatus();
  pump();
}

function retryLater(reason) {
  saves.busy = false;
  saves.attempt += 1;
  const delay = Math.min(1000 * 2 ** (saves.attempt - 1), 15000);
  saves.retryAt = Date.now() + delay;
  saves.lastError = reason;
  clearTimeout(saves.timer);
  saves.timer = setTimeout(pump, delay);
  renderStatus();
}

async function pump() {
  if (saves.busy || saves.halted || !saves.items.length) {
    renderStatus();
    if (!saves.items.length && leaveTo) window.location.href = leaveTo;
    return;
  }
  saves.busy = true;
  saves.retryAt = 0;
  renderStatus();
  const item = saves.items[0];
  const body = new URLSearchParams(item.data);
  body.set("base_version", editor.dataset.version);
  let response;
  let html;
  try {
    response = await fetch(item.url, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrfToken(), "HX-Current-URL": window.location.href },
    });
    html = await response.text();
  } catch {
    retryLater("offline");
    return;
  }
  if (response.redirected && new URL(response.url).pathname.startsWith("/accounts/login")) {
    saves.busy = false;
    saves.halted = "login";
    renderStatus();
    return;
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408) {
    if (saves.attempt < 4 || response.status >= 502) {
      retryLater(`error ${response.status}`);
    } else {
      saves.busy = false;
      saves.halted = "error";
      saves.lastError = `error ${response.status}`;
      renderStatus();
    }
    return;
  }
  saves.attempt = 0;
  saves.items.shift();
  saves.busy = false;
  handleResponse(response, html, item);
  pump();
}

function handleResponse(response, html, item) {
  const events = JSON.parse(response.headers.get("HX-Trigger") || "{}");
  if (events["sheet-saved"]) editor.dataset.version = String(events["sheet-saved"].version);
  const redirect = response.headers.get("HX-Redirect");
  if (redirect) {
    leaveTo = redirect;
    window.location.href = redirect;
    return;
  }
  if (response.status === 409) {
    saves.halted = "conflict";
    saves.items.unshift(item); // kept and listed: the annotator can copy what did not save
  }
  const target = response.headers.get("HX-Retarget") || item.target;
  if (html.trim() && document.querySelector(target)) {
    htmx.swap(target, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
  }
  if (response.status === 409) showUnsaved();
  if (response.ok && item.onSaved) item.onSaved(events);
  for (const [name, detail] of Object.entries(events)) {
    editor.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  }
  if (events["sheet-undone"]) undoneText = `Undid ${events["sheet-undone"].description}`;
  afterSwap();
}

function showUnsaved() {
  const banner = $(".conflict-banner", document);
  if (!banner) return;
  const list = document.createElement("ul");
  list.className = "unsaved";
  for (const item of saves.items) {
    const li = document.createElement("li");
    li.textContent = item.label + (item.data.comment ? `: “${item.data.comment}”` : "");
    list.append(li);
  }
  banner.append(list);
}

function renderStatus() {
  const box = $("#save-status");
  if (!box) return;
  const n = saves.items.length;
  let cls = "is-saved";
  let text = undoneText || "All changes saved";
  let action = "";
  if (saves.halted === "conflict") {
    cls = "is-conflict";
    text = "Changed elsewhere — not saved";
    action = '<button type="button" class="button small" data-reload>Reload</button>';
  } else if (saves.halted === "login") {
    cls = "is-error";
    text = `You were logged out — ${n} change${n === 1 ? "" : "s"} waiting. Log in in another tab, then retry.`;
    action = '<button type="button" class="button small" data-retry>Retry</button>';
  } else if (saves.halted === "error") {
    cls = "is-error";
    text = `Could not save (${saves.lastError}) — ${n} change${n === 1 ? "" : "s"} waiting`;
    action = '<button type="button" class="button small" data-retry>Retry</button>';
  } else if (saves.retryAt) {
    cls = "is-offline";
    const seconds = Math.max(0, Math.ceil((saves.retryAt - Date.now()) / 1000));
    const why = saves.lastError === "offline" ? "Offline" : `Server ${saves.lastError}`;
    text = `${why} — ${n} change${n === 1 ? "" : "s"} kept, retrying in ${seconds} s`;
    action = '<button type="button" class="button small" data-retry>Retry now</button>';
  } else if (n || saves.busy) {
    cls = "is-saving";
    text = n > 1 ? `Saving… (${n})` : "Saving…";
  }
  box.className = `save-status ${cls}`;
  box.innerHTML = `<span class="dot"></span><span class="text"></span>${action}`;
  box.querySelector(".text").textContent = text;
  box.dataset.pending = String(n);
}

setInterval(() => {
  if (saves.retryAt) renderStatus();
}, 1000);

window.addEventListener("online", () => {
  if (saves.retryAt) {
    clearTimeout(saves.timer);
    pump();
  }
});

window.addEventListener("beforeunload", (event) => {
  if (saves.items.length && !leaveTo) {
    event.preventDefault();
    event.returnValue = "";
  }
});

// ---- selection -------------------------------------------------------------------------------------

function clearSelection() {
  for (const m of [1, 2]) {
    state.sel[m].clear();
    state.keys[m].clear();
  }
  state.anchor = null;
  state.lineSel.clear();
  applySelection();
}

function range(a, b) {
  const out = [];
  for (let k = Math.min(a, b); k <= Math.max(a, b); k += 1) out.push(k);
  return out;
}

function onToken(tok, event) {
  const m = Number(tok.closest(".member").dataset.member);
  const i = Number(tok.dataset.i);
  const keying = state.mode === "phenomena" && state.keyMode;
  const set = keying ? state.keys[m] : state.sel[m];
  const additive = event.ctrlKey || event.metaKey;
  if (event.shiftKey && state.anchor && state.anchor.m === m) {
    for (const k of range(state.anchor.i, i)) set.add(k);
  } else if (additive) {
    if (set.has(i)) set.delete(i);
    else set.add(i);
    state.anchor = { m, i };
  } else if (state.mode === "align" && state.sel[3 - m].size) {
    set.clear();
    set.add(i);
    commitLinks(event.altKey ? "possible" : state.kind);
    return;
  } else {
    const only = set.size === 1 && set.has(i);
    set.clear();
    if (!only) set.add(i);
    state.anchor = { m, i };
  }
  applySelection();
}

function applySelection() {
  for (const m of [1, 2]) {
    for (const tok of $$(`.member-${m} .tok`)) {
      const i = Number(tok.dataset.i);
      tok.classList.toggle("sel", state.sel[m].has(i));
      tok.classList.toggle("keysel", state.keys[m].has(i));
    }
  }
  for (const line of $$(".link-lines line.link")) {
    line.classList.toggle("picked", state.lineSel.has(`${line.dataset.i}-${line.dataset.j}`));
  }
  const info = $(".selection-info");
  if (info) {
    const parts = [];
    for (const m of [1, 2]) {
      if (state.sel[m].size) parts.push(`<b>${m}</b> ${escapeHtml(words(m, state.sel[m]))}`);
      if (state.keys[m].size) parts.push(`<b>key ${m}</b> ${escapeHtml(words(m, state.keys[m]))}`);
    }
    const editing = state.editing ? `Editing <strong>${escapeHtml(state.editing.name)}</strong> — pick a type or press ↵ to keep it; Esc cancels. ` : "";
    info.innerHTML = editing + (parts.length ? `Selected: ${parts.join(" · ")}` : editing ? "" : '<span class="muted">Select tokens, then pick a type.</span>');
    info.classList.toggle("editing", Boolean(state.editing));
  }
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// ---- phenomena -------------------------------------------------------------------------------------

function projectionValue() {
  const checked = $('input[name="projection"]:checked');
  return checked ? checked.value : "";
}

function setProjection(value) {
  const radio = $(`input[name="projection"][value="${value}"]`);
  if (radio) radio.checked = true;
}

function setKeyMode(on) {
  state.keyMode = on;
  editor.classList.toggle("key-mode", on);
  const button = $(".key-toggle");
  if (button) button.setAttribute("aria-pressed", String(on));
}

function chooseType(button) {
  const snapshot = selectionSnapshot();
  const data = {
    ptype: button.dataset.ptype,
    scope1: joined(state.sel[1]),
    scope2: joined(state.sel[2]),
    key1: joined(state.keys[1]),
    key2: joined(state.keys[2]),
    projection: button.dataset.projection === "1" ? projectionValue() : "",
  };
  const editing = state.editing;
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

function selectionSnapshot() {
  return [1, 2].map((m) => `${joined(state.sel[m])}|${joined(state.keys[m])}`).join("/") + (state.editing?.id ?? "");
}

function startEdit(li) {
  setMode("phenomena");
  const parse = (text) => new Set(text ? text.split(",").map(Number) : []);
  state.sel = { 1: parse(li.dataset.scope1), 2: parse(li.dataset.scope2) };
  state.keys = { 1: parse(li.dataset.key1), 2: parse(li.dataset.key2) };
  const type = $(`.ptype[data-ptype="${li.dataset.ptype}"]`);
  state.editing = { id: li.dataset.ph, url: li.dataset.updateUrl, ptype: li.dataset.ptype, name: type ? type.dataset.name : "phenomenon" };
  setProjection(li.dataset.projection || "");
  markEditing();
  applySelection();
}

function markEditing() {
  for (const li of $$(".ph")) li.classList.toggle("editing", state.editing?.id === li.dataset.ph);
  if (state.editing && !$(`.ph[data-ph="${state.editing.id}"]`)) state.editing = null;
}

function highlightPhenomenon(id, on) {
  for (const mark of $$(`.mk[data-ph="${id}"]`)) {
    mark.classList.toggle("hl", on);
    mark.parentElement.classList.toggle(mark.classList.contains("key") ? "hlkey" : "hl", on);
  }
}

function filterPalette(query) {
  const q = query.trim().toLowerCase();
  for (const button of $$(".ptype")) {
    const hay = `${button.dataset.name} ${button.title}`.toLowerCase();
    button.hidden = Boolean(q) && !hay.includes(q) && button.dataset.shortcut !== q;
  }
  for (const group of $$(".pgroup")) group.hidden = !group.querySelector(".ptype:not([hidden])");
}

// ---- word alignment --------------------------------------------------------------------------------

function commitLinks(kind) {
  if (!state.sel[1].size || !state.sel[2].size) {
    clientMessage("#link-message", "Select at least one token in member 1 and one in member 2.");
    return;
  }
  const data = { i: joined(state.sel[1]), j: joined(state.sel[2]), kind: kind || state.kind };
  const n = state.sel[1].size * state.sel[2].size;
  enqueue({ url: editor.dataset.linkAddUrl, data, target: "#links", label: `${n} new ${data.kind} link${n > 1 ? "s" : ""}` });
  clearSelection();
}

function unlinkSelected() {
  if (state.lineSel.size) {
    for (const key of state.lineSel) {
      const [i, j] = key.split("-");
      enqueue({ url: editor.dataset.linkRemoveUrl, data: { i, j }, target: "#links", label: "removed link" });
    }
  } else if (state.sel[1].size && state.sel[2].size) {
    enqueue({ url: editor.dataset.linkRemoveUrl, data: { i: joined(state.sel[1]), j: joined(state.sel[2]) }, target: "#links", label: "removed links" });
  } else {
    clientMessage("#link-message", "Select a link (click its line) or tokens on both sides to unlink.");
    return;
  }
  clearSelection();
}

function toggleLink(i, j) {
  enqueue({ url: editor.dataset.linkToggleUrl, data: { i, j }, target: "#links", label: "sure/possible switch" });
}

function acceptSuggestion(i, j) {
  enqueue({ url: editor.dataset.linkAcceptUrl, data: { i, j }, target: "#links", label: "accepted suggestion" });
}

function drawLine(svg, coords, cls, i, j) {
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  for (const [k, v] of Object.entries(coords)) line.setAttribute(k, v.toFixed(1));
  line.setAttribute("class", cls);
  line.dataset.i = i;
  line.dataset.j = j;
  svg.append(line);
}

function drawLines() {
  const svg = $(".link-lines");
  const members = $("#members");
  if (!svg || !members) return;
  svg.replaceChildren();
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
    return { x1: ra.left + ra.width / 2 - box.left, y1: ra.bottom - box.top, x2: rb.left + rb.width / 2 - box.left, y2: rb.top - box.top };
  };
  // Suggestions first (underneath): dotted amber, a click accepts one as a sure link.
  for (const [i, j] of data.suggested || []) {
    const coords = ends(i, j);
    if (!coords) continue;
    drawLine(svg, coords, "hit suggested-hit", i, j);
    drawLine(svg, coords, "link suggested", i, j);
  }
  for (const [i, j, sure] of data.links) {
    const coords = ends(i, j);
    if (!coords) continue;
    for (const cls of ["hit", `link ${sure ? "sure" : "possible"}`]) drawLine(svg, coords, cls, i, j);
  }
  applySelection();
}

function buildMatrix() {
  const box = $(".link-matrix");
  if (!box) return;
  box.hidden = state.view !== "matrix";
  if (box.hidden) return;
  const data = linksData();
  const kind = new Map(data.links.map(([i, j, sure]) => [`${i}-${j}`, sure ? "sure" : "possible"]));
  const initial = new Set((data.suggested || []).map(([i, j]) => `${i}-${j}`));
  const head = data.tokens2.map((t, j) => `<th class="mx-col" data-j="${j}"><span>${escapeHtml(t)}</span></th>`).join("");
  const rows = data.tokens1.map((t, i) => {
    const cells = data.tokens2.map((_, j) => {
      const key = `${i}-${j}`;
      const cls = `mx-cell ${kind.get(key) || ""}${initial.has(key) ? " init" : ""}`;
      return `<td class="${cls}" data-i="${i}" data-j="${j}" title="${escapeHtml(t)} – ${escapeHtml(data.tokens2[j])}"></td>`;
    });
    return `<tr><th class="mx-row" data-i="${i}">${escapeHtml(t)}</th>${cells.join("")}</tr>`;
  });
  box.innerHTML = `<table class="matrix"><thead><tr><th class="mx-corner"><span>1 ↓ · 2 →</span></th>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>
    <p class="muted small">Click a cell: empty → ${state.kind} → ${state.kind === "sure" ? "possible" : "sure"} → empty. Amber dots mark suggestions of the automatic aligner: clicking one accepts it.</p>`;
}

function onMatrixCell(cell) {
  const { i, j } = cell.dataset;
  if (cell.classList.contains("init") && !cell.classList.contains("sure") && !cell.classList.contains("possible")) return acceptSuggestion(i, j);
  if (cell.classList.contains("sure") || cell.classList.contains("possible")) {
    const other = cell.classList.contains("sure") ? "possible" : "sure";
    if (other === state.kind) {
      enqueue({ url: editor.dataset.linkRemoveUrl, data: { i, j }, target: "#links", label: "removed link" });
    } else {
      toggleLink(i, j);
    }
  } else {
    enqueue({ url: editor.dataset.linkAddUrl, data: { i, j, kind: state.kind }, target: "#links", label: `new ${state.kind} link` });
  }
}

function setKind(kind) {
  state.kind = kind;
  editor.classList.toggle("kind-sure", kind === "sure");
  editor.classList.toggle("kind-possible", kind === "possible");
  buildMatrix();
}

function setView(view) {
  state.view = view;
  editor.classList.toggle("view-lines", view === "lines");
  editor.classList.toggle("view-matrix", view === "matrix");
  localStorage.setItem("editor-view", view);
  drawLines();
  buildMatrix();
}

// ---- phrase alignment ------------------------------------------------------------------------------

function pickNode(g) {
  const t = Number(g.closest("svg.tree").dataset.tree);
  const n = Number(g.dataset.node);
  state.nodes[t] = state.nodes[t] === n ? null : n;
  applyNodes();
}

function nodeName(t, n) {
  const g = $(`svg.tree[data-tree="${t}"] .node[data-node="${n}"]`);
  return g ? g.querySelector("title").textContent : `node ${n}`;
}

function applyNodes() {
  for (const t of [1, 2]) {
    for (const g of $$(`svg.tree[data-tree="${t}"] .node`)) g.classList.toggle("picked", Number(g.dataset.node) === state.nodes[t]);
  }
  const pick = $(".phrase-pick");
  if (!pick) return;
  const side = (t) => (state.nodes[t] === null ? '<span class="muted">—</span>' : `<b>${escapeHtml(nodeName(t, state.nodes[t]))}</b>`);
  pick.innerHTML = state.nodes[1] === null && state.nodes[2] === null
    ? '<span class="muted">Pick a node in each tree, or one node and “no counterpart”.</span>'
    : `<span class="mtag">1</span> ${side(1)} <span class="pa-arrow">⟷</span> <span class="mtag">2</span> ${side(2)}`;
}

function alignNodes(kind) {
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

function highlightPhrase(li, on) {
  for (const t of [1, 2]) {
    const n = li.dataset[`node${t}`];
    if (n !== "") $(`svg.tree[data-tree="${t}"] .node[data-node="${n}"]`)?.classList.toggle("hl", on);
  }
}

// ---- modes, messages, swaps ------------------------------------------------------------------------

function availableModes() {
  return $$(".mode-tabs .tab").map((tab) => tab.dataset.mode);
}

function setMode(mode) {
  const modes = availableModes();
  if (!modes.includes(mode)) mode = modes[0] || "phenomena";
  if (mode !== state.mode) {
    clearSelection();
    state.editing = null;
    setKeyMode(false);
  }
  state.mode = mode;
  for (const m of ["phenomena", "align", "phrase"]) editor.classList.toggle(`mode-${m}`, m === mode);
  for (const tab of $$(".mode-tabs .tab")) tab.setAttribute("aria-selected", String(tab.dataset.mode === mode));
  localStorage.setItem("editor-mode", mode);
  drawLines();
  buildMatrix();
  applySelection();
}

function clientMessage(slot, text) {
  const box = $(slot);
  if (!box) return;
  box.innerHTML = `<span class="msg-error"><span class="msg-line">${escapeHtml(text)}</span></span>`;
}

function afterSwap() {
  markEditing();
  setMode(state.mode);
  applyNodes();
  renderStatus();
}

function undo() {
  enqueue({ url: editor.dataset.undoUrl, data: {}, target: "#workspace", label: "undo" });
}

function submitSave(form) {
  const data = Object.fromEntries(new FormData(form).entries());
  delete data.csrfmiddlewaretoken;
  const label = form.id === "comment" ? "comment" : form.id === "pair-label" ? "pair label" : form.querySelector("button")?.textContent.trim() || "change";
  enqueue({ url: form.action, data, target: form.dataset.target, label, key: form.id === "comment" ? "comment" : null });
  if (form.id === "comment") {
    const status = $("#comment-status");
    if (status) status.textContent = "";
  }
}

function navigate(href) {
  if (saves.items.length) {
    leaveTo = href;
    renderStatus();
    return;
  }
  window.location.href = href;
}

// ---- time spent ------------------------------------------------------------------------------------

let activeSeconds = 0;
let lastInput = Date.now();
for (const name of ["keydown", "pointerdown", "pointermove", "wheel"]) {
  document.addEventListener(name, () => (lastInput = Date.now()), { passive: true });
}
setInterval(() => {
  if (document.visibilityState === "visible" && Date.now() - lastInput < 120000) activeSeconds += 1;
}, 1000);

function sendTime() {
  if (!activeSeconds) return;
  const form = new FormData();
  form.set("seconds", String(activeSeconds));
  form.set("csrfmiddlewaretoken", csrfToken());
  if (navigator.sendBeacon(editor.dataset.timeUrl, form)) activeSeconds = 0;
}
document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && sendTime());
window.addEventListener("pagehide", sendTime);

// ---- events ----------------------------------------------------------------------------------------

function onClick(event) {
  const t = event.target;
  const tok = t.closest(".tok");
  if (tok && tok.closest("#members")) return onToken(tok, event);
  const ptype = t.closest(".ptype");
  if (ptype) return chooseType(ptype);
  const tab = t.closest(".mode-tabs .tab");
  if (tab) return setMode(tab.dataset.mode);
  const node = t.closest("svg.tree .node");
  if (node) return pickNode(node);
  const hit = t.closest(".link-lines line");
  if (hit && hit.classList.contains("suggested-hit")) return acceptSuggestion(hit.dataset.i, hit.dataset.j);
  if (hit) {
    const key = `${hit.dataset.i}-${hit.dataset.j}`;
    if (event.altKey) return toggleLink(hit.dataset.i, hit.dataset.j);
    if (state.lineSel.has(key)) state.lineSel.delete(key);
    else state.lineSel.add(key);
    return applySelection();
  }
  const cell = t.closest(".mx-cell");
  if (cell) return onMatrixCell(cell);
  const nav = t.closest("a[data-nav]");
  if (nav && saves.items.length) {
    event.preventDefault();
    return navigate(nav.href);
  }
  if (t.closest("[data-undo]")) return undo();
  if (t.closest("[data-edit]")) return startEdit(t.closest(".ph"));
  if (t.closest("[data-link]")) return commitLinks();
  if (t.closest("[data-unlink]")) return unlinkSelected();
  if (t.closest(".kind-btn")) return setKind(t.closest(".kind-btn").dataset.kind);
  if (t.closest(".view-btn")) return setView(t.closest(".view-btn").dataset.view);
  if (t.closest("[data-phrase]")) return alignNodes(t.closest("[data-phrase]").dataset.phrase);
  if (t.closest(".key-toggle")) return setKeyMode(!state.keyMode);
  if (t.closest("[data-reload]")) {
    leaveTo = window.location.href;
    return window.location.reload();
  }
  if (t.closest("[data-retry]")) {
    saves.halted = null;
    saves.attempt = 0;
    clearTimeout(saves.timer);
    return pump();
  }
  if (t.closest("[data-close-help]") || t.id === "help") return toggleHelp(false);
  return undefined;
}

function toggleHelp(show) {
  const help = document.getElementById("help");
  help.hidden = show === undefined ? !help.hidden : !show;
}

const SHIFT_KEYS = {
  KeyP: () => setLabel("paraphrase"),
  KeyN: () => setLabel("non_paraphrase"),
  KeyH: () => setMode("phenomena"),
  KeyA: () => setMode("align"),
  KeyT: () => setMode("phrase"),
  KeyK: () => state.mode === "phenomena" && setKeyMode(!state.keyMode),
  KeyL: () => setProjection("local"),
  KeyG: () => setProjection("global"),
  KeyX: () => setProjection(""),
  KeyS: () => setKind(state.kind === "sure" ? "possible" : "sure"),
  KeyM: () => setView(state.view === "lines" ? "matrix" : "lines"),
  KeyO: () => $(".queue-nav form[action$='/postpone/']")?.requestSubmit(),
  KeyD: () => $(".queue-nav form[action$='/done/']")?.requestSubmit(),
  Digit0: () => state.mode === "phrase" && alignNodes("null"),
};

function setLabel(value) {
  const radio = $(`#pair-label input[value="${value}"]`);
  if (!radio || radio.checked) return;
  radio.checked = true;
  radio.form.requestSubmit();
}

function onEnter() {
  if (state.mode === "align") return commitLinks();
  if (state.mode === "phrase") return alignNodes("sure");
  if (state.editing) {
    const button = $(`.ptype[data-ptype="${state.editing.ptype}"]`);
    if (button) chooseType(button);
  }
  return undefined;
}

function onKey(event) {
  const t = event.target;
  const typing = t.matches("input[type=search], input[type=text], textarea, select");
  if (event.key === "Escape") {
    if (!document.getElementById("help").hidden) return toggleHelp(false);
    if (typing) return t.blur();
    state.editing = null;
    state.nodes = { 1: null, 2: null };
    setKeyMode(false);
    markEditing();
    applyNodes();
    return clearSelection();
  }
  if (typing) {
    if (t.matches(".palette-filter") && event.key === "Enter") {
      event.preventDefault();
      const first = $(".ptype:not([hidden])");
      if (first) chooseType(first);
    }
    return undefined;
  }
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z" && !event.shiftKey) {
    event.preventDefault();
    return undo();
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  if (event.key === "?") return toggleHelp();
  if (event.shiftKey && SHIFT_KEYS[event.code]) {
    event.preventDefault();
    return SHIFT_KEYS[event.code]();
  }
  if (event.key === "]") return navigate($(".nav-next").href);
  if (event.key === "[") return navigate($(".nav-prev").href);
  if (event.key === "/") {
    event.preventDefault();
    setMode("phenomena");
    return $(".palette-filter")?.focus();
  }
  if (event.key === "Enter" && !t.matches("button, a")) {
    event.preventDefault();
    return onEnter();
  }
  if ((event.key === "Delete" || event.key === "Backspace") && state.mode === "align") {
    event.preventDefault();
    return unlinkSelected();
  }
  if (state.mode === "phenomena" && !event.shiftKey && event.key.length === 1) {
    const button = $$(".ptype").find((b) => b.dataset.shortcut === event.key.toLowerCase() && !b.hidden);
    if (button) {
      event.preventDefault();
      chooseType(button);
    }
  }
  return undefined;
}

let commentTimer = null;

function init() {
  document.documentElement.classList.add("js");
  editor.addEventListener("click", onClick);
  editor.addEventListener("mousedown", (event) => {
    if (event.shiftKey && event.target.closest(".tok")) event.preventDefault();
  });
  document.getElementById("help").addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-save]")) return;
    event.preventDefault();
    submitSave(form);
  });
  editor.addEventListener("change", (event) => {
    if (event.target.matches("#pair-label input[type=radio]")) event.target.form.requestSubmit();
  });
  editor.addEventListener("input", (event) => {
    if (event.target.matches(".palette-filter")) filterPalette(event.target.value);
    if (event.target.matches("#comment textarea")) {
      clearTimeout(commentTimer);
      const form = event.target.form;
      commentTimer = setTimeout(() => submitSave(form), 700);
      const status = $("#comment-status");
      if (status) status.textContent = "…";
    }
  });
  editor.addEventListener("focusout", (event) => {
    if (event.target.matches("#comment textarea") && commentTimer) {
      clearTimeout(commentTimer);
      commentTimer = null;
      submitSave(event.target.form);
    }
  });
  for (const [over, on] of [["mouseover", true], ["mouseout", false], ["focusin", true], ["focusout", false]]) {
    editor.addEventListener(over, (event) => {
      const li = event.target.closest(".ph");
      if (li && !li.contains(event.relatedTarget)) highlightPhenomenon(li.dataset.ph, on);
      const pa = event.target.closest(".pa");
      if (pa && !pa.contains(event.relatedTarget)) highlightPhrase(pa, on);
    });
  }
  editor.addEventListener("sheet-saved", () => {
    undoneText = "";
  });
  new ResizeObserver(() => drawLines()).observe($("#workspace") || editor);
  state.view = localStorage.getItem("editor-view") === "matrix" ? "matrix" : "lines";
  setKind("sure");
  setView(state.view);
  setMode(localStorage.getItem("editor-mode") || "phenomena");
  renderStatus();
}

if (editor) init();
