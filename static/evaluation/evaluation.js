// Keyboard focus on the evaluation pages. htmx replaces a judgement card after each answer, which
// would leave focus on the page body (the next Tab then skips the follow-up question that just
// appeared). After the swap focus goes to the card's next question, or, once the card has its label,
// to the next open question on the page (and, when every sentence is judged, to the unit's main
// button); the live region #eval-status says what happened.

const QUESTION = ".judgement fieldset.question";

function announce(text) {
  const region = document.getElementById("eval-status");
  if (region) region.textContent = text;
}

function sentenceOf(card) {
  const number = card.closest(".item")?.querySelector(".sentence .n");
  return number ? `Sentence ${number.textContent.trim()}` : "This sentence";
}

function questionText(fieldset) {
  return fieldset.querySelector("legend")?.textContent.trim() ?? "";
}

function firstButton(scope) {
  return scope.querySelector("button:not([disabled])");
}

// The first open question after `card` in the page's order, else the first one before it.
function nextOpenQuestion(card) {
  const open = [...document.querySelectorAll(QUESTION)].filter((q) => !card.contains(q));
  const after = open.find((q) => card.compareDocumentPosition(q) & Node.DOCUMENT_POSITION_FOLLOWING);
  return after ?? open[0] ?? null;
}

// Where focus waits, once every sentence is judged, for the unit's main button to be enabled (the
// actions are refreshed after the card is swapped).
let waitingFocus = null;

function focusUnitAction() {
  const button = document.querySelector("#unit-actions button.primary:not([disabled])");
  if (button) button.focus();
  return Boolean(button);
}

function cardSwapped(card) {
  const sentence = sentenceOf(card);
  const error = card.querySelector(".error");
  const question = card.querySelector("fieldset.question");
  const resolve = card.querySelector(".answers.resolve");
  if (question || resolve) {
    const target = question ?? resolve;
    firstButton(target)?.focus();
    if (!error) announce(question ? `${sentence}: ${questionText(question)}` : `${sentence}: save the label?`);
    return;
  }
  const badge = card.querySelector(".label-badge.changed") ?? card.querySelector(".result .label-badge");
  const saved = badge ? `${sentence}: ${badge.textContent.trim()}.` : `${sentence}: kept.`;
  const next = nextOpenQuestion(card);
  waitingFocus = null;
  if (next) {
    firstButton(next)?.focus();
    announce(`${saved} Next, ${sentenceOf(next).toLowerCase()}: ${questionText(next)}`);
  } else if (focusUnitAction()) {
    announce(`${saved} Every sentence is judged.`);
  } else {
    waitingFocus = firstButton(card) ?? document.body;
    waitingFocus.focus();
    announce(`${saved} Every sentence is judged.`);
  }
}

document.addEventListener("htmx:afterSettle", (event) => {
  const elt = event.target;
  if (!(elt instanceof Element)) return;
  if (elt.matches(".judgement")) {
    cardSwapped(elt);
  } else if (elt.id === "unit-actions") {
    // The unit's actions are refreshed after each saved label: if focus was on their old buttons (now
    // gone) or waits for the main button, put it there.
    const active = document.activeElement;
    if (!active || active === document.body || active === waitingFocus) focusUnitAction();
    waitingFocus = null;
  }
});
