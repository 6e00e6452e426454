// ETPC's sense-preserving mark of the phenomenon being made or edited: the "Sense" radio group of the
// palette bar, and Shift+E cycling it + → − → unmarked (outside text fields). The editor module reads
// the value when it saves a phenomenon and sets it when an existing one is opened for editing.

const ORDER = ["yes", "no", ""];

export function senseValue() {
  const checked = document.querySelector('input[name="sense_preserving"]:checked');
  return checked ? checked.value : "";
}

export function setSense(value) {
  const radio = document.querySelector(`input[name="sense_preserving"][value="${value}"]`);
  if (radio) radio.checked = true;
}

export function cycleSense() {
  setSense(ORDER[(ORDER.indexOf(senseValue()) + 1) % ORDER.length]);
}

document.addEventListener("keydown", (event) => {
  if (!event.shiftKey || event.code !== "KeyE" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.matches("input[type=search], input[type=text], textarea, select")) return;
  if (!document.querySelector('input[name="sense_preserving"]')) return;
  event.preventDefault();
  cycleSense();
});
