/* Evolve from here: a run seeded with the current design, its config edited in the page (errors shown
   as evo validate shows them), the fitness chart (best and mean per generation) and the best creature
   drawn live, Stop (the run ends at a checkpoint), and the run's elites opened in the editor. Refine:
   tunes the current body's gait (when the server has evo.refine; else the button says why not). */

import { ApiError, get, post } from "./api.js";
import { el, shown } from "./controls.js";
import { exactCopy } from "./json.js";
import { View } from "./view.js";

export class Evolve {
  constructor(session, design, runs, say) {
    this.session = session;
    this.design = design;
    this.runs = runs;
    this.say = say;
    this.config = document.getElementById("config");
    this.config.value = session.config || ""; // evo's default studio config
    this.state = document.getElementById("evolve-state");
    this.errors = document.getElementById("evolve-errors");
    this.best = null;
    this.timer = null;
    this.bestView = new View(document.getElementById("best"));
    document.getElementById("evolve").addEventListener("click", () => this.start());
    document.getElementById("stop").addEventListener("click", () => this.stop());
    document.getElementById("open-best").addEventListener("click", () => { if (this.best) this.design.load(this.best); });
    this.refine = new Refine(session, design, say);
  }

  async start() {
    this.errors.replaceChildren();
    document.getElementById("evolve-panel").open = true;
    try {
      const answer = await post("/api/evolve", { config: this.config.value, seed_model: this.design.model });
      this.state.textContent = `running: ${answer.run}`;
      this.poll();
    } catch (error) {
      const lines = error instanceof ApiError && error.body.errors && error.body.errors.length ? error.body.errors : [error.message];
      for (const line of lines) this.errors.append(el("li", { class: "error", text: line }));
      this.state.textContent = "not started";
    }
  }

  async stop() {
    try {
      await post("/api/evolve/stop");
      this.state.textContent = "stopping…";
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
    const generations = s.generations ? ` of ${s.generations}` : "";
    this.state.textContent = `${s.state}: generation ${s.generation ?? 0}${generations}${s.run ? ` — ${s.run.split(/[\\/]/).slice(-2).join("/")}` : ""}${s.message && s.message !== s.state ? ` — ${s.message}` : ""}`;
    this.state.dataset.state = s.state;
    this.state.title = s.run || "";
    this.chart(s.history || []);
    if (s.best_model) {
      this.best = s.best_model;
      this.drawBest();
    }
    if (s.state === "running" || s.state === "stopping") this.poll();
    else if (s.state === "done") this.runs.refresh(); // its elites, in the Run panel
  }

  /* Best (dark) and mean (light) fitness per generation, scaled to the chart. */
  chart(history) {
    const best = document.getElementById("chart-best"), mean = document.getElementById("chart-mean");
    best.dataset.points = String(history.length);
    if (!history.length) { best.setAttribute("points", ""); mean.setAttribute("points", ""); return; }
    const values = history.flatMap((h) => [h.best, h.mean]).filter(Number.isFinite);
    const low = Math.min(...values), high = Math.max(...values), span = high - low || 1;
    const last = Math.max(1, history[history.length - 1].generation - history[0].generation);
    const x = (h) => 8 + (h.generation - history[0].generation) / last * 284;
    const y = (v) => 130 - (v - low) / span * 110;
    const line = (key) => history.filter((h) => Number.isFinite(h[key])).map((h) => `${x(h).toFixed(1)},${y(h[key]).toFixed(1)}`).join(" ");
    best.setAttribute("points", line("best"));
    mean.setAttribute("points", line("mean"));
    const top = history[history.length - 1];
    document.getElementById("chart-label").textContent = `generation ${top.generation}: best ${shown(top.best)}, mean ${shown(top.mean)}`;
  }

  drawBest() {
    const model = this.best, view = this.bestView, points = model.masses.map((m) => [m.x, m.y]);
    if (!points.length) return;
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const width = Math.max(...xs) - Math.min(...xs) || 1, height = Math.max(...ys, 0) - Math.min(...ys, 0) || 1;
    view.s = Math.min(2, 260 / width, 90 / height);
    view.ox = 150 - (Math.min(...xs) + width / 2) * view.s;
    view.oy = 110 + Math.min(0, Math.min(...ys)) * view.s;
    view.draw(model, points, { frame: 0, selectedMasses: new Set(), selectedLinks: new Set() });
  }
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
      if (this.best) this.design.commit((m) => { for (const key of Object.keys(m)) delete m[key]; Object.assign(m, exactCopy(this.best)); });
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
