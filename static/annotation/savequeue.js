// The save queue.
//
// Why a queue of our own instead of hx-post: every save must carry the sheet version the page shows,
// saves must reach the server in the order they were made, and a save that fails because the network
// is down must be kept and re-sent, never dropped. The queue sends one save at a time with the current
// version, and hands the server's HTML to htmx's own swap (htmx.swap), so partials and out-of-band
// swaps work exactly as with hx-post.

import { $, csrfToken, editor } from "./dom.js";

const saves = { items: [], busy: false, halted: null, attempt: 0, timer: null, retryAt: 0, lastError: "" };
let leaveTo = null;
let undoneText = "";
let refusedText = "";
let refusedFocus = null;
let afterSwap = () => {};

/** Register what runs after every answer is swapped in (re-applying selection, mode, nodes). */
export function onAfterSwap(callback) {
  afterSwap = callback;
}

export function pending() {
  return saves.items.length;
}

export function enqueue(item) {
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
  const focused = focusSelector(document.activeElement);
  if (html.trim() && document.querySelector(target)) {
    htmx.swap(target, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
  }
  if (response.status === 409) showUnsaved();
  if (response.ok && item.onSaved) item.onSaved(events);
  for (const [name, detail] of Object.entries(events)) {
    editor.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  }
  if (events["sheet-undone"]) undoneText = `Undid ${events["sheet-undone"].description}`;
  if (events["sheet-redone"]) undoneText = `Redid ${events["sheet-redone"].description}`;
  if (response.status === 422) {
    // A refused save: the status says so (reason and fix, from the server's message) and takes focus.
    refusedText = events["save-refused"]?.message || "The server refused this change.";
    refusedFocus = focused;
    undoneText = "";
  } else if (response.ok) {
    refusedText = "";
  }
  afterSwap();
  if (refusedText && response.status === 422) {
    renderStatus();
    const box = $("#save-status");
    box.setAttribute("tabindex", "-1");
    box.focus();
    return;
  }
  restoreFocus(focused);
}

/** A selector that finds the focused element again in freshly swapped HTML (a token, a tree node, an
 * element with an id, or a named input inside one), so keyboard users keep their place after a save. */
function focusSelector(el) {
  if (!el || el === document.body) return null;
  const tok = el.closest(".member .tok");
  if (tok) return `.member-${tok.closest(".member").dataset.member} .tok[data-i="${tok.dataset.i}"]`;
  const node = el.closest("svg.tree .node");
  if (node)
    return `svg.tree[data-tree="${node.closest("svg.tree").dataset.tree}"] .node[data-node="${node.dataset.node}"]`;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const holder = el.closest("[id]");
  if (holder && el.name) return `#${CSS.escape(holder.id)} [name="${el.name}"][value="${el.value}"]`;
  return null;
}

function restoreFocus(selector) {
  const active = document.activeElement;
  if (!selector || (active && active !== document.body && active.isConnected)) return;
  const el = document.querySelector(selector);
  if (!el) return;
  if (el.matches(".tok, svg.tree .node")) el.setAttribute("tabindex", "0");
  el.focus();
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

export function renderStatus() {
  const box = $("#save-status");
  if (!box) return;
  const n = saves.items.length;
  const changes = `${n} change${n === 1 ? "" : "s"}`;
  let cls = "is-saved";
  let text = undoneText || "All changes saved";
  let action = "";
  if (saves.halted === "conflict") {
    cls = "is-conflict";
    text = "Changed elsewhere — not saved";
    action = '<button type="button" class="button small" data-reload>Reload</button>';
  } else if (saves.halted === "login") {
    cls = "is-error";
    text = `You were logged out — ${changes} waiting. Log in in another tab, then retry.`;
    action = '<button type="button" class="button small" data-retry>Retry</button>';
  } else if (saves.halted === "error") {
    cls = "is-error";
    text = `Could not save (${saves.lastError}) — ${changes} waiting`;
    action = '<button type="button" class="button small" data-retry>Retry</button>';
  } else if (saves.retryAt) {
    cls = "is-offline";
    const seconds = Math.max(0, Math.ceil((saves.retryAt - Date.now()) / 1000));
    const why = saves.lastError === "offline" ? "Offline" : `Server ${saves.lastError}`;
    text = `${why} — ${changes} kept, retrying in ${seconds} s`;
    action = '<button type="button" class="button small" data-retry>Retry now</button>';
  } else if (n || saves.busy) {
    cls = "is-saving";
    text = n > 1 ? `Saving… (${n})` : "Saving…";
  } else if (refusedText) {
    cls = "is-error is-refused";
    text = `Not saved — ${refusedText}`;
    action = '<button type="button" class="button small" data-dismiss-refused>OK</button>';
  }
  box.className = `save-status ${cls}`;
  box.innerHTML = `<span class="dot"></span><span class="text"></span>${action}`;
  box.querySelector(".text").textContent = text;
  box.dataset.pending = String(n);
}

/** Clear a refused save's message (its OK button); focus goes back to the page. */
export function dismissRefused() {
  refusedText = "";
  renderStatus();
  const el = refusedFocus && document.querySelector(refusedFocus);
  if (el) {
    if (el.matches(".tok, svg.tree .node")) el.setAttribute("tabindex", "0");
    el.focus();
  }
}

/** Send the waiting saves now (the Retry button, or the browser coming back online). */
export function retryNow() {
  saves.halted = null;
  saves.attempt = 0;
  clearTimeout(saves.timer);
  pump();
}

/** Reload the page without the "leave with unsaved changes?" question (after a conflict). */
export function reloadPage() {
  leaveTo = window.location.href;
  window.location.reload();
}

/** Go to another page once every waiting save has reached the server. */
export function navigate(href) {
  if (saves.items.length) {
    leaveTo = href;
    renderStatus();
    return;
  }
  window.location.href = href;
}

export function startSaveQueue() {
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
  editor.addEventListener("sheet-saved", () => {
    undoneText = "";
  });
}
