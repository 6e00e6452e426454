// The keyboard help overlay (? opens it, Esc or a click outside closes it).

export function helpOpen() {
  return !document.getElementById("help").hidden;
}

export function toggleHelp(show) {
  const help = document.getElementById("help");
  help.hidden = show === undefined ? !help.hidden : !show;
}
