/* Small DOM helpers for the panels: labelled inputs, sliders and selects that read their value from
   the design and commit a change through a callback. Each returns {element, refresh}. */

export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/* A number to show: up to 6 significant digits, no trailing noise. */
export function shown(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value !== "number") return String(value);
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

/* A labelled number input; `read()` gives the value shown, `write(number|null)` commits (empty: null). */
export function numberRow(label, read, write, options) {
  const o = options || {};
  const input = el("input", { type: "number", step: o.step || "any", min: o.min, max: o.max, "aria-label": label, size: 8 });
  input.addEventListener("change", () => write(input.value === "" ? null : Number(input.value)));
  const row = el("label", { class: "row", title: o.title || "" }, el("span", { text: label }), input);
  if (o.unit) row.append(el("span", { class: "unit", text: o.unit }));
  return { element: row, refresh: () => { if (document.activeElement !== input) { const v = read(); input.value = v === null || v === undefined ? "" : v; } } };
}

export function selectRow(label, choices, read, write, title) {
  const select = el("select", { "aria-label": label });
  for (const choice of choices) select.append(el("option", { value: choice, text: choice }));
  select.addEventListener("change", () => write(select.value));
  return { element: el("label", { class: "row", title: title || "" }, el("span", { text: label }), select), refresh: () => { select.value = read(); } };
}

export function checkRow(label, read, write, title) {
  const box = el("input", { type: "checkbox", "aria-label": label });
  box.addEventListener("change", () => write(box.checked));
  return { element: el("label", { class: "row", title: title || "" }, el("span", { text: label }), box), refresh: () => { box.checked = Boolean(read()); } };
}

/* A slider over [low, high]; `describe(v)` is the text beside it (live while dragging); commits on release. */
export function sliderRow(label, low, high, step, read, write, describe, title) {
  const slider = el("input", { type: "range", min: low, max: high, step: step, "aria-label": label });
  const text = el("output", { class: "readout" });
  slider.addEventListener("input", () => { text.textContent = describe(Number(slider.value)); });
  slider.addEventListener("change", () => write(Number(slider.value)));
  const row = el("div", { class: "slider", title: title || "" }, el("span", { text: label }), slider, text);
  return { element: row, refresh: () => { const v = read(); slider.value = v; text.textContent = describe(v); } };
}
