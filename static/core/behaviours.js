// Small page behaviours that used to be inline handlers (the Content-Security-Policy allows no inline
// script): "Back" links that return to the previous page, invitation links selected on click.
document.addEventListener("click", (event) => {
  const back = event.target.closest("[data-history-back]");
  if (back && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
    return;
  }
  const url = event.target.closest("input.invitation-url");
  if (url) url.select();
});

// Polling regions marked data-poll-visible-only ask nothing while the tab is hidden (this replaces
// htmx trigger filters such as [document.visibilityState == 'visible'], which need eval).
document.addEventListener("htmx:beforeRequest", (event) => {
  const elt = event.detail.elt;
  if (document.visibilityState !== "visible" && elt.closest("[data-poll-visible-only]")) {
    event.preventDefault();
  }
});
