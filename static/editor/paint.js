// Dynamic styles from data attributes, set through the CSSOM (the page has no style attributes, so a
// strict Content-Security-Policy needs no 'unsafe-inline' for styles): a type's colour (data-colour →
// the --c custom property) and a progress bar's width (data-percent).

import { editor } from "./dom.js";

/** Apply the data-colour and data-percent attributes under `root` (the editor by default). */
export function paint(root = editor) {
  for (const el of root.querySelectorAll("[data-colour]")) el.style.setProperty("--c", el.dataset.colour);
  for (const el of root.querySelectorAll("[data-percent]")) {
    const percent = Math.max(0, Math.min(100, Number(el.dataset.percent) || 0));
    el.style.width = `${percent}%`;
  }
}
