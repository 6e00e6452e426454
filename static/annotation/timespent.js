// Active time on the pair: seconds with the page visible and some input in the last two minutes, sent
// with a beacon when the page is hidden or left.

import { csrfToken, editor } from "./dom.js";

const IDLE_MS = 120000;
let activeSeconds = 0;
let lastInput = Date.now();

function sendTime() {
  if (!activeSeconds) return;
  const form = new FormData();
  form.set("seconds", String(activeSeconds));
  form.set("csrfmiddlewaretoken", csrfToken());
  if (navigator.sendBeacon(editor.dataset.timeUrl, form)) activeSeconds = 0;
}

export function startTimeSpent() {
  for (const name of ["keydown", "pointerdown", "pointermove", "wheel"]) {
    document.addEventListener(
      name,
      () => {
        lastInput = Date.now();
      },
      { passive: true },
    );
  }
  setInterval(() => {
    if (document.visibilityState === "visible" && Date.now() - lastInput < IDLE_MS) activeSeconds += 1;
  }, 1000);
  document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && sendTime());
  window.addEventListener("pagehide", sendTime);
}
