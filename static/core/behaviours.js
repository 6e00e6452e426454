// Small page behaviours that used to be inline handlers (the Content-Security-Policy allows no inline
// script): "Back" links that return to the previous page, invitation links selected on click and copied
// by their "Copy link" button.
document.addEventListener("click", (event) => {
  const back = event.target.closest("[data-history-back]");
  if (back && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
    return;
  }
  const url = event.target.closest("input.invitation-url");
  if (url) url.select();
  const copy = event.target.closest("button[data-copy]");
  if (copy) copyField(copy);
});

// A "Copy link" button: copies its field's text and says so next to it (clipboard API where the
// browser allows it, else the field is selected for Ctrl+C and the note says so).
async function copyField(button) {
  const field = document.getElementById(button.dataset.copy);
  const note = button.parentElement.querySelector(".copied");
  if (!field) return;
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    if (note) note.textContent = "Copied.";
  } catch {
    if (note) note.textContent = "Selected: press Ctrl+C to copy.";
  }
}

// Polling regions marked data-poll-visible-only ask nothing while the tab is hidden (this replaces
// htmx trigger filters such as [document.visibilityState == 'visible'], which need eval).
document.addEventListener("htmx:beforeRequest", (event) => {
  const elt = event.detail.elt;
  if (document.visibilityState !== "visible" && elt.closest("[data-poll-visible-only]")) {
    event.preventDefault();
  }
});
