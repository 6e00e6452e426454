// Data-driven presentation without style attributes: the Content-Security-Policy allows no inline style
// (no `style="…"`), but a style set from a script through the CSSOM is allowed. Templates write the
// value in a data attribute (a bar's width, a type's colour, a grid's column count); this applies it
// to every element as the parser creates it (a MutationObserver set up before <body> exists, so nothing
// is painted without it) and to everything htmx or the editor inserts later.
//
// Only the properties below can be set, each from a value of its own kind: a number for a percentage
// or a count, a CSS colour (or gradient) that the browser itself accepts. Anything else is ignored.
(() => {
  const percent = (value) => {
    const n = Number(value);
    return value !== "" && Number.isFinite(n) ? `${n}%` : null;
  };
  const integer = (value) => (/^-?\d+$/.test(value) ? value : null);
  const colour = (value) => (CSS.supports("color", value) ? value : null);
  const paint = (value) => (CSS.supports("color", value) || CSS.supports("background-image", value) ? value : null);

  // data attribute → [CSS property or custom property, how its value is checked]
  const RULES = {
    "data-width": ["width", percent],
    "data-left": ["left", percent],
    "data-colour": ["--c", colour],
    "data-type-colour": ["--type", colour],
    "data-background": ["background", paint],
    "data-foreground": ["color", colour],
    "data-lanes": ["--lanes", integer],
    "data-lane": ["--l", integer],
    "data-columns": ["--n", integer],
  };
  const ATTRIBUTES = Object.keys(RULES);
  const SELECTOR = ATTRIBUTES.map((name) => `[${name}]`).join(",");

  const apply = (element) => {
    for (const name of ATTRIBUTES) {
      const raw = element.getAttribute(name);
      if (raw === null) continue;
      const [property, check] = RULES[name];
      const value = check(raw.trim());
      if (value === null) element.style.removeProperty(property);
      else element.style.setProperty(property, value);
    }
  };

  const applyWithin = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.matches(SELECTOR)) apply(node);
    for (const element of node.querySelectorAll(SELECTOR)) apply(element);
  };

  const observer = new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "attributes") apply(record.target);
      else for (const node of record.addedNodes) applyWithin(node);
    }
  });
  observer.observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ATTRIBUTES,
  });
  applyWithin(document.documentElement);
})();
