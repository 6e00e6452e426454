// What the annotator has selected and which mode the editor is in: one object, shared by the modules.

export const state = {
  mode: "phenomena",
  view: "lines",
  kind: "sure",
  sel: { 1: new Set(), 2: new Set() },
  keys: { 1: new Set(), 2: new Set() },
  anchor: null,
  keyMode: false,
  editing: null,
  lineSel: new Set(),
  nodes: { 1: null, 2: null },
  cursor: { 1: 0, 2: 0 },
};
