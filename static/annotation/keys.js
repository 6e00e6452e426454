// Keyboard shortcuts (the Keys panel and the ? overlay list them).

import { commitLinks, setKind, setView, unlinkSelected } from "./alignment.js";
import { focusMember, onTokenKey } from "./cursor.js";
import { $ } from "./dom.js";
import { helpOpen, toggleHelp } from "./help.js";
import { setMode } from "./modes.js";
import { chooseType, keepEditedType, markEditing, setKeyMode, setProjection, typeForShortcut } from "./phenomena.js";
import { alignNodes, clearNodes } from "./phrase.js";
import { navigate } from "./savequeue.js";
import { clearSelection } from "./selection.js";
import { redo, setLabel, undo } from "./sheet.js";
import { state } from "./state.js";
import { acceptAll, focusSuggestions, onLinkSuggestionKey, onSuggestionKey } from "./suggestions.js";
import { focusTree, onNodeKey } from "./treekeys.js";

const SHIFT_KEYS = {
  KeyP: () => setLabel("paraphrase"),
  KeyN: () => setLabel("non_paraphrase"),
  KeyH: () => setMode("phenomena"),
  KeyA: () => setMode("align"),
  KeyT: () => setMode("phrase"),
  KeyK: () => state.mode === "phenomena" && setKeyMode(!state.keyMode),
  KeyL: () => setProjection("local"),
  KeyG: () => setProjection("global"),
  KeyX: () => setProjection(""),
  KeyS: () => setKind(state.kind === "sure" ? "possible" : "sure"),
  KeyM: () => setView(state.view === "lines" ? "matrix" : "lines"),
  KeyO: () => $(".queue-nav form[action$='/postpone/']")?.requestSubmit(),
  KeyD: () => $(".queue-nav form[action$='/done/']")?.requestSubmit(),
  KeyU: () => focusSuggestions(),
  KeyY: () => acceptAll(),
  Digit0: () => state.mode === "phrase" && alignNodes("null"),
  Digit1: () => focusLayer(1),
  Digit2: () => focusLayer(2),
};

/** Shift+1 / Shift+2: the keyboard goes to member 1 / 2 — its tokens, or its tree in phrase mode. */
function focusLayer(n) {
  if (state.mode === "phrase") return focusTree(n);
  return focusMember(n);
}

function onEnter() {
  if (state.mode === "align") return commitLinks();
  if (state.mode === "phrase") return alignNodes("sure");
  return keepEditedType();
}

/** Esc: close the help, leave a text field, or drop the selection, the edit and the picked nodes. */
function onEscape(target, typing) {
  if (helpOpen()) return toggleHelp(false);
  if (typing) return target.blur();
  state.editing = null;
  setKeyMode(false);
  markEditing();
  clearNodes();
  return clearSelection();
}

function onTyping(event) {
  if (event.target.matches(".palette-filter") && event.key === "Enter") {
    event.preventDefault();
    const first = $(".ptype:not([hidden])");
    if (first) chooseType(first);
  }
}

/** S / P (without Shift): link the selected tokens, or align the picked nodes, as sure / possible. */
function onKind(key) {
  const kind = key === "s" ? "sure" : "possible";
  if (state.mode === "align") return commitLinks(kind);
  if (state.mode === "phrase") return alignNodes(kind);
  return undefined;
}

export function onKey(event) {
  const t = event.target;
  const typing = t.matches("input[type=search], input[type=text], textarea, select");
  if (event.key === "Escape") return onEscape(t, typing);
  if (typing) return onTyping(event);
  const sugg = t.closest?.(".ph-sugg");
  if (sugg === t && onSuggestionKey(event, sugg)) return undefined;
  const linkSugg = t.closest?.(".suggestion-list .sugg");
  if (linkSugg && onLinkSuggestionKey(event, linkSugg)) return undefined;
  const tok = t.closest?.("#members .tok");
  if (tok && onTokenKey(event, tok)) return undefined;
  const node = t.closest?.("svg.tree .node");
  if (node && onNodeKey(event, node)) return undefined;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z" && !event.shiftKey) {
    event.preventDefault();
    return undo();
  }
  const redoKey = event.key.toLowerCase() === "z" ? event.shiftKey : event.key.toLowerCase() === "y";
  if ((event.ctrlKey || event.metaKey) && redoKey) {
    event.preventDefault();
    return redo();
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  if (event.key === "?") return toggleHelp();
  if (event.shiftKey && SHIFT_KEYS[event.code]) {
    event.preventDefault();
    return SHIFT_KEYS[event.code]();
  }
  if (event.key === "]") return navigate($(".nav-next").href);
  if (event.key === "[") return navigate($(".nav-prev").href);
  if (event.key === "/") {
    event.preventDefault();
    setMode("phenomena");
    return $(".palette-filter")?.focus();
  }
  if (event.key === "Enter" && !t.matches("button, a")) {
    event.preventDefault();
    return onEnter();
  }
  if ((event.key === "Delete" || event.key === "Backspace") && state.mode === "align") {
    event.preventDefault();
    return unlinkSelected();
  }
  if (state.mode !== "phenomena" && !event.shiftKey && (event.key === "s" || event.key === "p")) {
    event.preventDefault();
    return onKind(event.key);
  }
  if (state.mode === "phenomena" && !event.shiftKey && event.key.length === 1) {
    const button = typeForShortcut(event.key);
    if (button) {
      event.preventDefault();
      chooseType(button);
    }
  }
  return undefined;
}
