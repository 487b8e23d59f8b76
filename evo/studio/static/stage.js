/* Under and over the stage: the timeline (seek any frame: the frames received are shown at once, the
   server computes the rest with evo's kernels), the live distance-over-time plot (this attempt and the
   ghost of the previous one), the applet's wave-phase indicator, and the notice when the wave leaves the
   muscles still. Distances are the centroid's x minus its x at frame 0, px. */

import { centroid } from "./view.js";

const $ = (id) => document.getElementById(id);
const TWO_PI = 2 * Math.PI;

/* The centroid distance of every record of `history` from its first, px ([] when empty). */
export function distances(history) {
  const known = history.filter(Boolean);
  if (!known.length || !history[0]) return [];
  const x0 = centroid(history[0])[0];
  return history.map((p) => (p && p[0][0] !== null ? centroid(p)[0] - x0 : null));
}

export class Stage {
  constructor(design, player, frames) {
    this.design = design;
    this.player = player;
    this.frames = frames; // () => the page's frames (the score's), the timeline's length
    this.timeline = $("timeline");
    this.plot = $("distance-plot");
    this.dragging = false;
    this.timeline.addEventListener("input", () => {
      this.dragging = true;
      const record = Number(this.timeline.value);
      if (!this.player.preview(record)) $("frame").textContent = `frame ${record} (computed on release)`;
    });
    this.timeline.addEventListener("change", () => {
      this.dragging = false;
      this.player.seek(Number(this.timeline.value));
    });
  }

  /* Called every animation frame. */
  update() {
    const player = this.player, last = Math.max(this.frames(), player.history.length - 1, player.record);
    this.timeline.max = String(last);
    if (!this.dragging) this.timeline.value = String(player.record);
    this.timeline.setAttribute("aria-valuetext", `frame ${player.frame} of ${last}`);
    this.drawPlot(last);
    this.drawPhase();
    const still = this.design.stillness();
    $("notice").textContent = still || "";
    $("notice").hidden = !still;
  }

  /* Distance over time: this attempt (dark) up to the record shown, the previous attempt (grey). */
  drawPlot(last) {
    const canvas = this.plot, ctx = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
    const now = distances(this.player.history.slice(0, this.player.record + 1));
    const ghost = distances(this.player.ghost);
    const values = [...now, ...ghost].filter((v) => v !== null && Number.isFinite(v));
    const low = Math.min(0, ...values), high = Math.max(1, ...values), span = high - low || 1;
    const left = 34, bottom = h - 14;
    const x = (k) => left + k / Math.max(1, last) * (w - left - 6), y = (v) => 6 + (high - v) / span * (bottom - 6);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = "rgba(255,255,255,0.85)"; ctx.fillRect(0, 0, w, h);
    ctx.strokeStyle = "#adb5bd"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(left, 6); ctx.lineTo(left, bottom); ctx.lineTo(w - 6, bottom); ctx.stroke();
    ctx.strokeStyle = "#dee2e6"; ctx.beginPath(); ctx.moveTo(left, y(0)); ctx.lineTo(w - 6, y(0)); ctx.stroke();
    ctx.fillStyle = "#495057"; ctx.font = "10px system-ui, sans-serif";
    ctx.textAlign = "right"; ctx.fillText(`${Math.round(high)}`, left - 3, 14); ctx.fillText(`${Math.round(low)}`, left - 3, bottom);
    ctx.textAlign = "left"; ctx.fillText("distance, px", left + 4, 14);
    ctx.textAlign = "right"; ctx.fillText(`frame ${last}`, w - 6, h - 3); ctx.textAlign = "left"; ctx.fillText("0", left, h - 3);
    const line = (series, colour) => {
      ctx.strokeStyle = colour; ctx.lineWidth = 1.5; ctx.beginPath();
      let open = false;
      series.forEach((v, k) => {
        if (v === null || !Number.isFinite(v)) { open = false; return; }
        if (open) ctx.lineTo(x(k), y(v)); else { ctx.moveTo(x(k), y(v)); open = true; }
      });
      ctx.stroke();
    };
    line(ghost, "#adb5bd");
    line(now, "#d9480f");
    const shown = now.length ? now[now.length - 1] : 0;
    canvas.dataset.points = String(now.length);
    canvas.dataset.distance = String(shown ?? "");
    $("distance").textContent = `distance ${shown === null ? "—" : `${shown >= 0 ? "+" : ""}${shown.toFixed(1)}`} px`;
  }

  /* The wave's phase θ = θ0 ± ω·frame on one period of sin, and the dot where the wave is now. */
  drawPhase() {
    const wave = this.design.model.wave || {}, sign = wave.direction === "reverse" ? -1 : 1;
    const theta = (wave.phase || 0) + sign * (wave.omega || 0) * this.player.frame;
    const phase = ((theta % TWO_PI) + TWO_PI) % TWO_PI, beta = wave.beta || 0;
    const svg = $("phase"), dot = $("phase-dot");
    const cx = 6 + phase / TWO_PI * 88, cy = 20 - 14 * beta * Math.sin(phase);
    dot.setAttribute("cx", cx.toFixed(1));
    dot.setAttribute("cy", cy.toFixed(1));
    const points = [];
    for (let k = 0; k <= 32; k++) points.push(`${(6 + k / 32 * 88).toFixed(1)},${(20 - 14 * beta * Math.sin(k / 32 * TWO_PI)).toFixed(1)}`);
    $("phase-wave").setAttribute("points", points.join(" "));
    svg.dataset.theta = phase.toFixed(4);
    svg.setAttribute("aria-label", `wave phase θ = ${phase.toFixed(2)} rad of 2π, β = ${beta}, ω = ${wave.omega || 0} rad/frame`);
  }
}
