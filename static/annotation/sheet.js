// Saves that come from the page's own forms (pair label, comment, done/postpone) and undo.

import { $, editor } from "./dom.js";
import { enqueue } from "./savequeue.js";

export function undo() {
  enqueue({ url: editor.dataset.undoUrl, data: {}, target: "#workspace", label: "undo" });
}

export function redo() {
  enqueue({ url: editor.dataset.redoUrl, data: {}, target: "#workspace", label: "redo" });
}

function formLabel(form) {
  if (form.id === "comment") return "comment";
  if (form.id === "pair-label") return "pair label";
  return form.querySelector("button")?.textContent.trim() || "change";
}

export function submitSave(form) {
  const data = Object.fromEntries(new FormData(form).entries());
  delete data.csrfmiddlewaretoken;
  const key = form.id === "comment" ? "comment" : null;
  enqueue({ url: form.action, data, target: form.dataset.target, label: formLabel(form), key });
  if (form.id === "comment") {
    const status = $("#comment-status");
    if (status) status.textContent = "";
  }
}

export function setLabel(value) {
  const radio = $(`#pair-label input[value="${value}"]`);
  if (!radio || radio.checked) return;
  radio.checked = true;
  radio.form.requestSubmit();
}

let commentTimer = null;

/** The comment saves 0.7 s after the last keystroke, and at once when the field loses focus. */
export function commentTyped(textarea) {
  clearTimeout(commentTimer);
  commentTimer = setTimeout(() => submitSave(textarea.form), 700);
  const status = $("#comment-status");
  if (status) status.textContent = "…";
}

export function commentLeft(textarea) {
  if (!commentTimer) return;
  clearTimeout(commentTimer);
  commentTimer = null;
  submitSave(textarea.form);
}
