/* JSON without losing evo's numbers: integers beyond 2^53 (a run's seeds in a model's meta) are kept as
   their exact digits (JSON.rawJSON), so a model read from the server is written back unchanged.
   Floats need nothing: the server prints them with repr and JavaScript's doubles read them exactly. */

const UNSAFE = /^-?\d+$/;

function exactInteger(key, value, context) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context && UNSAFE.test(context.source) && JSON.rawJSON) {
    return JSON.rawJSON(context.source);
  }
  return value;
}

/* Parse JSON text, large integers kept digit for digit. */
export function parseJson(text) { return JSON.parse(text, exactInteger); }

/* A deep copy (of a model) that keeps large integers. */
export function exactCopy(value) { return parseJson(JSON.stringify(value)); }

/* A copy for scripts (window.evoStudio.state()): large integers as BigInt, which Playwright and the
   structured clone carry exactly. */
export function scriptCopy(value) {
  return JSON.parse(JSON.stringify(value), (key, v, context) =>
    typeof v === "number" && !Number.isSafeInteger(v) && context && UNSAFE.test(context.source) ? BigInt(context.source) : v);
}
