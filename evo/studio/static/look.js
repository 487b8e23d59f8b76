/* Look inside: the score of a fitness plugin on the current design over the page's frames (recomputed
   after each edit, the label as evo writes it; Evolve and Race use the same plugin and frames) and evo
   analyze (equilibrium, natural frequencies in rad/frame, and the mode shapes animated around the
   equilibrium on the stage). All numbers come from the server. */

import { ApiError, post } from "./api.js";
import { el, shown } from "./controls.js";

export class Look {
  constructor(session, design) {
    this.session = session;
    this.design = design;
    this.plugin = document.getElementById("plugin");
    this.score = document.getElementById("score");
    this.frames = document.getElementById("score-frames");
    this.analysis = document.getElementById("analysis");
    this.mode = null; // {equilibrium: [[x, y]...], shape: [[dx, dy]...], omega}: the mode animated
    this.serial = 0;
    this.timer = null;
    for (const plugin of session.plugins) this.plugin.append(el("option", { value: plugin.name, text: plugin.name, title: plugin.doc }));
    if (session.plugins.some((p) => p.name === "distance")) this.plugin.value = "distance";
    this.plugin.addEventListener("change", () => this.rescore());
    this.frames.addEventListener("change", () => this.rescore());
    document.getElementById("analyze").addEventListener("click", () => this.analyze());
  }

  /* Score again, shortly after the last edit (edits in a burst are scored once). */
  rescore() {
    clearTimeout(this.timer);
    this.mode = null;
    this.timer = setTimeout(() => this.scoreNow(), 250);
  }

  async scoreNow() {
    const serial = ++this.serial, model = this.design.model;
    if (!model.masses.length || !this.plugin.value) { this.score.textContent = "—"; return; }
    this.score.textContent = "scoring…";
    try {
      const answer = await post("/api/score", { model: model, plugin: this.plugin.value, frames: this.scoring().frames });
      if (serial !== this.serial) return;
      this.score.textContent = answer.label + (answer.exploded ? ` (exploded at frame ${answer.exploded_frame})` : "");
      this.score.dataset.fitness = JSON.stringify(answer.fitness);
    } catch (error) {
      if (serial === this.serial) this.score.textContent = error instanceof ApiError ? error.message : String(error);
    }
  }

  /* The plugin and frames the page scores with (Evolve and Race use them too). */
  scoring() {
    const frames = Math.max(1, Math.round(Number(this.frames.value) || 3000));
    return { plugin: this.plugin.value, frames: frames };
  }

  /* Forget what was shown for another design (New, open). */
  clear() {
    this.mode = null;
    this.analysis.replaceChildren();
    this.score.textContent = "—";
    delete this.score.dataset.fitness;
  }

  async analyze() {
    this.analysis.replaceChildren(el("p", { text: "analyzing…" }));
    try {
      this.show(await post("/api/analyze", { model: this.design.model }));
    } catch (error) {
      this.analysis.replaceChildren(el("p", { class: "error", text: error.message }));
    }
  }

  show(a) {
    const box = this.analysis, eq = a.equilibrium || {};
    box.replaceChildren();
    box.append(el("p", { text: `equilibrium: ${eq.converged ? "found" : "not found"}${eq.residual !== undefined ? `, residual ${shown(eq.residual)} px` : ""}` }));
    for (const note of eq.notes || []) box.append(el("p", { class: "hint", text: note }));
    box.append(el("p", { text: `${a.rigid_modes ?? "?"} rigid modes, ${a.mechanisms ?? "?"} mechanisms, ${a.unstable_modes ?? "?"} unstable` }));
    if (a.omega !== undefined) box.append(el("p", { text: `the wave's ω = ${shown(a.omega)} rad/frame` }));
    const list = el("ol", { class: "modes", "aria-label": "natural frequencies" });
    (a.frequencies || []).forEach((omega, k) => {
      const shape = a.shapes && a.shapes[k];
      const item = el("li", {}, el("span", { text: `ω${k + 1} = ${shown(omega)} rad/frame, period ${shown(a.periods ? a.periods[k] : 2 * Math.PI / omega)}` }));
      if (shape && eq.positions) {
        item.append(el("button", { type: "button", text: "show", "aria-label": `show mode ${k + 1}`, onclick: () => {
          this.mode = { equilibrium: eq.positions, shape: shape, omega: omega, start: performance.now() };
        } }));
      }
      list.append(item);
    });
    box.append(list);
    if (a.shapes) box.append(el("button", { type: "button", text: "stop showing", onclick: () => { this.mode = null; } }));
  }

  /* The positions of the animated mode now ([[x, y], ...] px), or null: equilibrium + A sin(ω t) shape. */
  modePositions(now) {
    const m = this.mode;
    if (!m) return null;
    let largest = 0;
    for (const [dx, dy] of m.shape) largest = Math.max(largest, Math.hypot(dx, dy));
    const amplitude = largest ? 12 / largest : 0, s = Math.sin((now - m.start) / 1000 * 2 * Math.PI * 0.8);
    return m.equilibrium.map(([x, y], i) => [x + amplitude * s * m.shape[i][0], y + amplitude * s * m.shape[i][1]]);
  }
}
