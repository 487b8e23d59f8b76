/* Evolve from here: a run seeded with the current design, scored as the page scores (the same plugin and
   frames), with a seed shown and new for each press; its config edited in the page (errors shown as evo
   validate shows them), a starting state while evo run loads (and compiles, the first time), the fitness
   chart with axes (best and mean per generation), the best creature drawn live, Stop (the run ends at a
   checkpoint), and the run in the Run panel as it grows. Refine: tunes the current body's gait (when the
   server has evo.refine; else the button says why not). */

import { ApiError, get, post } from "./api.js";
import { el, shown } from "./controls.js";
import { exactCopy } from "./json.js";
import { thumbnail } from "./library.js";

const SVG = "http://www.w3.org/2000/svg";

/* A new run seed: a positive 31-bit integer. */
export const newSeed = () => 1 + Math.floor(Math.random() * 2147483646);

/* `text` (TOML) with `key = literal` in table [table]: the key's line replaced, or added under the table's
   header, or the table added at the end. Comments and every other line are kept. */
export function setTomlKey(text, table, key, literal) {
  const lines = text.split("\n"), header = /^\s*\[([^\]]+)\]\s*(#.*)?$/;
  let inside = table === "", at = -1, last = table === "" ? -1 : null;
  for (let i = 0; i < lines.length; i++) {
    const m = header.exec(lines[i]);
    if (m) { if (inside && at < 0) break; inside = m[1].trim() === table; if (inside) last = i; continue; }
    if (inside && new RegExp(`^\\s*${key}\\s*=`).test(lines[i])) { at = i; break; }
  }
  if (at >= 0) lines[at] = `${key} = ${literal}`;
  else if (last !== null) lines.splice(last + 1, 0, `${key} = ${literal}`);
  else lines.push("", `[${table}]`, `${key} = ${literal}`);
  return lines.join("\n");
}

/* `text` without the table [table] (its header and keys). */
export function dropTomlTable(text, table) {
  const lines = text.split("\n"), header = /^\s*\[([^\]]+)\]/;
  let inside = false;
  return lines.filter((line) => {
    const m = header.exec(line);
    if (m) inside = m[1].trim() === table;
    return !inside;
  }).join("\n");
}

/* Round tick values covering [low, high], about `count` of them (as the gallery's charts). */
export function niceTicks(low, high, count) {
  if (!(Number.isFinite(low) && Number.isFinite(high))) return [];
  if (high <= low) high = low + 1;
  const raw = (high - low) / (count || 5), magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((v) => v >= raw);
  const ticks = [];
  for (let v = Math.floor(low / step) * step; v <= high + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(10)));
  return ticks;
}

export class Evolve {
  constructor(session, design, runs, say, scoring) {
    this.session = session;
    this.design = design;
    this.runs = runs;
    this.say = say;
    this.scoring = scoring; // () => {plugin, frames}: what the page's score uses
    this.config = document.getElementById("config");
    this.config.value = session.config || ""; // evo's default studio config
    this.seed = document.getElementById("evolve-seed");
    this.seed.value = String(newSeed());
    this.state = document.getElementById("evolve-state");
    this.errors = document.getElementById("evolve-errors");
    this.best = null;
    this.timer = null;
    this.started = 0;
    this.generation = null;
    document.getElementById("evolve").addEventListener("click", () => this.start());
    document.getElementById("stop").addEventListener("click", () => this.stop());
    document.getElementById("open-best").addEventListener("click", () => {
      if (this.best) { this.design.replace(this.best, { file: null }); this.say(`opened the best of the run, ${this.best.name} (Undo brings the design before back)`); }
    });
    this.refine = new Refine(session, design, say);
  }

  /* The config as it will run: the seed shown, the page's plugin and frames. */
  prepared(seed) {
    const { plugin, frames } = this.scoring();
    let text = this.config.value;
    const named = /^\s*plugin\s*=\s*"([^"]*)"/m.exec(text);
    if (named && named[1] !== plugin) text = dropTomlTable(text, "evaluation.params"); // the other plugin's params
    text = setTomlKey(text, "run", "seed", String(seed));
    text = setTomlKey(text, "evaluation", "plugin", JSON.stringify(plugin));
    return setTomlKey(text, "evaluation", "frames", String(frames));
  }

  async start() {
    this.errors.replaceChildren();
    document.getElementById("evolve-panel").open = true;
    const seed = Math.max(0, Math.round(Number(this.seed.value) || 0));
    const config = this.prepared(seed);
    try {
      const answer = await post("/api/evolve", { config: config, seed_model: this.design.model });
      this.config.value = config;
      this.seed.value = String(newSeed()); // the next press runs another seed
      this.runSeed = seed;
      this.started = performance.now();
      this.generation = null;
      this.best = null;
      this.chart([]);
      this.state.textContent = `starting ${answer.run.split(/[\\/]/).slice(-2).join("/")} (seed ${seed})…`;
      this.state.dataset.state = "starting";
      this.runs.starting(answer.run, seed);
      this.poll();
    } catch (error) {
      const lines = error instanceof ApiError && error.body.errors && error.body.errors.length ? error.body.errors : [error.message];
      for (const line of lines) this.errors.append(el("li", { class: "error", text: line }));
      this.state.textContent = "not started";
      this.state.dataset.state = "not started";
    }
  }

  async stop() {
    try {
      await post("/api/evolve/stop");
      this.state.textContent = "stopping at the next checkpoint…";
    } catch (error) {
      this.say(error.message);
    }
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), 400);
  }

  async update() {
    let s;
    try {
      s = await get("/api/evolve");
    } catch (error) {
      this.state.textContent = error.message;
      return;
    }
    const run = s.run ? s.run.split(/[\\/]/).slice(-2).join("/") : "";
    const seconds = Math.round((performance.now() - this.started) / 1000);
    const of = s.generations ? ` of ${s.generations}` : "";
    let text, state = s.state;
    if (s.state === "running" && s.generation === null) {
      state = "starting";
      text = `starting ${run} (seed ${this.runSeed}): evo run is loading; its first run compiles the simulator (half a minute or more) — ${seconds} s`;
    } else if (s.state === "running" || s.state === "stopping") {
      text = `${s.state}: generation ${s.generation}${of} — ${run} (seed ${this.runSeed})`;
    } else if (s.state === "done" && /stopped/.test(s.message || "")) {
      text = s.generation === null ? `stopped before its first generation — ${run}` : `stopped at generation ${s.generation}${of} — ${run}: ${s.message}`;
    } else if (s.state === "done") {
      text = `done: ${(s.generation ?? -1) + 1}${of} generations — ${run} (seed ${this.runSeed})`;
    } else {
      text = `${s.state}${s.message ? `: ${s.message}` : ""}`;
    }
    this.state.textContent = text;
    this.state.dataset.state = state;
    this.state.title = s.run || "";
    this.chart(s.history || []);
    if (s.best_model) {
      this.best = s.best_model;
      this.drawBest();
    }
    if (s.generation !== null && s.generation !== this.generation) { this.generation = s.generation; this.runs.refresh(); }
    if (s.state === "running" || s.state === "stopping") this.poll();
    else if (s.state === "done") this.runs.refresh(); // its elites, in the Run panel
  }

  /* Best and mean fitness per generation, with axes, ticks and a legend as the gallery draws them. */
  chart(history) {
    const box = document.getElementById("chart"), W = 320, H = 150, L = 46, R = 8, T = 10, B = 30;
    box.dataset.points = String(history.length);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("role", "img");
    const add = (tag, attributes, text) => {
      const node = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
      if (text !== undefined) node.textContent = text;
      svg.append(node);
      return node;
    };
    const values = history.flatMap((h) => [h.best, h.mean]).filter(Number.isFinite);
    const lowest = values.length ? Math.min(...values) : 0, highest = values.length ? Math.max(...values) : 1;
    const ticks = niceTicks(lowest, highest, 4);
    const low = Math.min(lowest, ticks[0] ?? 0), high = Math.max(highest, ticks[ticks.length - 1] ?? 1);
    const g0 = history.length ? history[0].generation : 0, g1 = history.length ? history[history.length - 1].generation : 1;
    const x = (g) => L + (g - g0) / Math.max(1, g1 - g0) * (W - L - R), y = (v) => T + (high - v) / ((high - low) || 1) * (H - T - B);
    add("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "#fbfbfd", stroke: "#dee2e6" });
    for (const v of ticks) {
      add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#eef0f2" });
      add("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end", class: "tick" }, shown(v));
    }
    for (const g of niceTicks(g0, Math.max(g1, g0 + 1), 5).filter((g) => g >= g0 && g <= Math.max(g1, g0 + 1) && Number.isInteger(g))) {
      add("text", { x: x(g), y: H - B + 12, "text-anchor": "middle", class: "tick" }, String(g));
    }
    add("text", { x: L + (W - L - R) / 2, y: H - 4, "text-anchor": "middle", class: "axis" }, "generation");
    add("text", { x: 10, y: T + (H - T - B) / 2, transform: `rotate(-90 10 ${T + (H - T - B) / 2})`, "text-anchor": "middle", class: "axis" }, "fitness");
    for (const [key, colour] of [["mean", "#1c7ed6"], ["best", "#d9480f"]]) {
      const points = history.filter((h) => Number.isFinite(h[key])).map((h) => `${x(h.generation).toFixed(1)},${y(h[key]).toFixed(1)}`).join(" ");
      add("polyline", { points: points, fill: "none", stroke: colour, "stroke-width": 2, id: `chart-${key}` });
    }
    const top = history[history.length - 1];
    add("text", { x: L + 6, y: T + 12, class: "axis", id: "chart-label" }, top ? `generation ${top.generation}: best ${shown(top.best)}, mean ${shown(top.mean)}` : "best — mean");
    svg.setAttribute("aria-label", top ? `fitness over generations: best ${shown(top.best)} at generation ${top.generation}` : "fitness over generations: no generation yet");
    box.replaceChildren(svg);
  }

  drawBest() { thumbnail(document.getElementById("best"), this.best); }
}

/* Refine: evo.refine (CMA-ES) tunes the current body's gait; each generation's progress is shown, and
   the refined design opens in the editor on request (one undoable edit). */
class Refine {
  constructor(session, design, say) {
    this.design = design;
    this.say = say;
    this.button = document.getElementById("refine");
    this.state = document.getElementById("refine-state");
    this.progress = document.getElementById("refine-progress");
    this.openButton = document.getElementById("open-refined");
    this.best = null;
    this.timer = null;
    this.button.addEventListener("click", () => this.start());
    document.getElementById("refine-stop").addEventListener("click", () => post("/api/refine/stop").catch((e) => this.say(e.message)));
    this.openButton.addEventListener("click", () => {
      if (!this.best) return;
      const refined = exactCopy(this.best);
      refined.name = /-refined$/.test(refined.name || "") ? refined.name : `${refined.name || "design"}-refined`;
      this.design.replace(refined, { file: null });
      this.say(`opened the refined design as ${refined.name} (Undo brings the design before back)`);
    });
    const refine = session.refine || {};
    this.genes = [];
    const box = document.getElementById("refine-genes");
    for (const gene of refine.genes || []) {
      const check = el("input", { type: "checkbox", value: gene, "aria-label": `tune ${gene}` });
      check.checked = !refine.default_genes || refine.default_genes.includes(gene);
      this.genes.push(check);
      box.append(el("label", { class: "gene" }, check, ` ${gene}`));
    }
    if (refine.available === false) this.unavailable(refine.message || "refine is not available");
  }

  /* Forget the refined design of another design (New, open). */
  forget() {
    this.best = null;
    this.openButton.disabled = true;
    this.progress.value = 0;
    if (!this.button.disabled) this.state.textContent = "";
  }

  unavailable(message) {
    this.button.disabled = true;
    this.button.title = message;
    document.getElementById("refine-stop").disabled = true;
    this.state.textContent = message;
  }

  async start() {
    const body = {
      model: this.design.model,
      plugin: document.getElementById("plugin").value,
      budget: Number(document.getElementById("refine-budget").value),
    };
    if (this.genes.length) body.genes = this.genes.filter((c) => c.checked).map((c) => c.value);
    this.best = null;
    this.openButton.disabled = true;
    try {
      await post("/api/refine", body);
      this.state.textContent = "starting…";
      this.poll();
    } catch (error) {
      if (error instanceof ApiError && error.status === 501) this.unavailable(error.message);
      else this.state.textContent = error.message;
    }
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), 400);
  }

  async update() {
    try {
      const s = await get("/api/refine");
      const steps = s.progress || [], last = steps[steps.length - 1] || {};
      const where = last.generation !== undefined ? `generation ${last.generation}: ` : "";
      this.state.textContent = `${s.state}: ${where}${last.evaluations ?? 0} of ${last.budget ?? "?"} evaluations, best ${shown(last.best_fitness)}${s.message && s.message !== s.state ? ` — ${s.message}` : ""}`;
      this.state.dataset.state = s.state;
      this.state.dataset.steps = String(steps.length);
      this.progress.max = last.budget || 1;
      this.progress.value = last.evaluations || 0;
      if (s.best_model) { this.best = s.best_model; this.openButton.disabled = false; }
      if (s.state === "running" || s.state === "stopping") this.poll();
    } catch (error) {
      this.state.textContent = error.message;
    }
  }
}
