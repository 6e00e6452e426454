// The compact palette: the types used last come first (a "Recent" row, kept per browser), and each
// class of types can be folded away (remembered too), so the list of phenomena stays in view.

import { $, $$ } from "./dom.js";

const RECENT_KEY = "editor-recent-types";
const FOLDED_KEY = "editor-folded-classes";
const RECENT_MAX = 6;

const load = (key) => {
  try {
    return JSON.parse(localStorage.getItem(key) || "[]");
  } catch {
    return [];
  }
};

/** Remember a chosen type and redraw the Recent row. */
export function rememberType(ptype) {
  const recent = [ptype, ...load(RECENT_KEY).filter((id) => id !== ptype)].slice(0, RECENT_MAX);
  localStorage.setItem(RECENT_KEY, JSON.stringify(recent));
  renderRecent();
}

export function renderRecent() {
  const groups = $(".palette-groups");
  if (!groups) return;
  groups.querySelector(".precent")?.remove();
  const buttons = load(RECENT_KEY)
    .map((id) => $(`.pgroup:not(.precent) .ptype[data-ptype="${id}"]`))
    .filter(Boolean);
  if (!buttons.length) return;
  const row = document.createElement("div");
  row.className = "pgroup precent";
  row.innerHTML = '<span class="pgroup-name">Recent</span><div class="ptypes"></div>';
  for (const button of buttons) {
    const copy = button.cloneNode(true);
    copy.querySelector("kbd")?.remove(); // the shortcut is shown once, on the type in its class
    row.querySelector(".ptypes").append(copy);
  }
  groups.prepend(row);
}

/** Fold or unfold one class of types. */
export function toggleClass(button) {
  const group = button.closest(".pgroup");
  const folded = new Set(load(FOLDED_KEY));
  const fold = !group.classList.contains("folded");
  if (fold) folded.add(group.dataset.group);
  else folded.delete(group.dataset.group);
  localStorage.setItem(FOLDED_KEY, JSON.stringify([...folded]));
  applyFolded();
}

export function applyFolded() {
  const folded = new Set(load(FOLDED_KEY));
  for (const group of $$(".pgroup[data-group]")) {
    const fold = folded.has(group.dataset.group);
    group.classList.toggle("folded", fold);
    group.querySelector(".pgroup-name")?.setAttribute("aria-expanded", String(!fold));
  }
}
