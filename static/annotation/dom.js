// The editor's element, DOM look-ups and small pure helpers shared by every other module.

export const editor = document.getElementById("editor");

export const $ = (sel, root = editor) => root.querySelector(sel);
export const $$ = (sel, root = editor) => Array.from(root.querySelectorAll(sel));
export const sorted = (set) => Array.from(set).sort((a, b) => a - b);
export const joined = (set) => sorted(set).join(",");
export const tokenEl = (m, i) => $(`.member-${m} .tok[data-i="${i}"]`);

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"];
  } catch {
    const match = document.cookie.match(/csrftoken=([^;]+)/);
    return match ? match[1] : "";
  }
}

export function linksData() {
  const node = document.getElementById("links-data");
  return node ? JSON.parse(node.textContent) : { links: [], initial: [], suggested: [], tokens1: [], tokens2: [] };
}

export function words(m, set) {
  const data = linksData();
  const tokens = m === 1 ? data.tokens1 : data.tokens2;
  const fromDom = (i) => (tokenEl(m, i) ? tokenEl(m, i).firstChild.textContent : String(i));
  return sorted(set)
    .map((i) => tokens[i] ?? fromDom(i))
    .join(" ");
}

export function clientMessage(slot, text) {
  const box = $(slot);
  if (!box) return;
  box.innerHTML = `<span class="msg-error"><span class="msg-line">${escapeHtml(text)}</span></span>`;
}
