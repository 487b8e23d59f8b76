/* The Selection panel: the selected masses (position, fixed) and links (rest length typed or taken
   from the drawing, spring or muscle, α and φ), and the muscle dial of the applet: the knob's angle is
   the phase φ (rad), its distance from the centre the amplitude α (0 at the centre, 1 on the rim). */

import { checkRow, el, numberRow } from "./controls.js";
import { polyCorners } from "./design.js";

const TWO_PI = 2 * Math.PI;

export class Inspector {
  constructor(design) {
    this.design = design;
    this.box = document.getElementById("inspector");
    this.dialBox = document.getElementById("dial-box");
    this.dial = document.getElementById("dial");
    this.rows = [];
    this.key = "";
    this.dialing = null;
    this.dial.addEventListener("pointerdown", (e) => { this.dial.setPointerCapture(e.pointerId); this.dialing = JSON.stringify(this.design.model); this.turn(e); });
    this.dial.addEventListener("pointermove", (e) => { if (this.dialing) this.turn(e); });
    this.dial.addEventListener("pointerup", () => {
      if (!this.dialing) return;
      const before = this.dialing;
      this.dialing = null;
      this.design.recordSince(before);
    });
    this.dial.addEventListener("keydown", (e) => this.key_(e));
  }

  links() { return [...this.design.selected.links].filter((k) => k < this.design.model.links.length); }

  masses() { return [...this.design.selected.masses].filter((i) => i < this.design.model.masses.length); }

  /* Rebuild when the selection changed, else refresh the values shown. */
  refresh() {
    const key = `${this.masses()}|${this.links()}|${this.design.model.masses.length}|${this.design.model.links.length}|${this.design.selected.poly}`;
    if (key !== this.key) { this.key = key; this.build(); }
    for (const row of this.rows) row.refresh();
    this.drawDial();
  }

  build() {
    const d = this.design, masses = this.masses(), links = this.links();
    this.box.replaceChildren();
    this.rows = [];
    const add = (row) => { this.box.append(row.element); this.rows.push(row); };
    const k = this.design.selected.poly, poly = k >= 0 && d.model.polys ? d.model.polys[k] : null;
    if (poly) {
      this.box.append(el("p", { text: `polygon ${k}: masses ${polyCorners(poly).join(", ")}` }));
      const colour = el("input", { type: "color", "aria-label": "polygon colour", value: poly.color || "#ced4da" });
      colour.addEventListener("change", () => d.setPoly(k, { color: colour.value }));
      this.box.append(el("label", { class: "row" }, el("span", { text: "colour" }), colour));
      add(checkRow("curvy", () => Boolean(((d.model.polys || [])[k] || {}).curvy), (on) => d.setPoly(k, { curvy: on }), "drawn as a smooth closed curve through its corners"));
      this.box.append(el("button", { type: "button", text: "Delete polygon", onclick: () => d.deletePoly(k) }));
    } else if (!masses.length && !links.length) {
      this.box.append(el("p", { class: "hint", text: `${d.model.masses.length} masses, ${d.model.links.length} links (${d.muscles()} muscles). Select in Move mode.` }));
    }
    if (masses.length) {
      this.box.append(el("p", { text: masses.length === 1 ? `mass ${masses[0]}` : `${masses.length} masses` }));
      if (masses.length === 1) {
        const i = masses[0], m = () => d.model.masses[i];
        add(numberRow("x", () => m().x, (v) => d.commit((model) => { model.masses[i].x = v ?? 0; }), { unit: "px" }));
        add(numberRow("y", () => m().y, (v) => d.commit((model) => { model.masses[i].y = v ?? 0; }), { unit: "px" }));
      }
      add(checkRow("fixed", () => masses.every((i) => d.model.masses[i].fixed), () => d.toggleFixed(masses), "a fixed mass never moves"));
    }
    if (links.length) {
      const first = () => d.model.links[links[0]];
      this.box.append(el("p", { text: links.length === 1 ? `link ${links[0]}: masses ${first().a}–${first().b}` : `${links.length} links` }));
      add(numberRow("rest length", () => first().rest, (v) => d.setLinks(links, { rest: v ?? 0 }), { unit: "px", min: 0, title: "l0" }));
      this.box.append(el("button", { type: "button", text: "Rest from drawing", onclick: () => d.restFromDrawing(links) }));
      add(checkRow("muscle", () => Boolean(first().alpha), () => { for (const k of links) d.toggleMuscle(k); }));
      add(numberRow("α", () => first().alpha || 0, (v) => d.setLinks(links, { alpha: Math.min(1, Math.max(0, v ?? 0)) }), { min: 0, max: 1, step: 0.01, title: "amplitude, 0..1" }));
      add(numberRow("φ", () => first().phi || 0, (v) => d.setLinks(links, { phi: v ?? 0 }), { unit: "rad", step: 0.01, title: "phase" }));
    }
    this.dialBox.hidden = !links.length;
  }

  /* Knob position from α and φ (y up on the dial, as the angle is drawn in the applet). */
  drawDial() {
    const links = this.links();
    if (!links.length) return;
    const link = this.design.model.links[links[0]], r = 50 * (link.alpha || 0), phi = link.phi || 0;
    const x = r * Math.cos(phi), y = -r * Math.sin(phi);
    document.getElementById("dial-hand").setAttribute("x2", x);
    document.getElementById("dial-hand").setAttribute("y2", y);
    document.getElementById("dial-knob").setAttribute("cx", x);
    document.getElementById("dial-knob").setAttribute("cy", y);
    this.dial.setAttribute("aria-valuetext", `α ${link.alpha || 0}, φ ${phi} rad`);
  }

  turn(event) {
    const box = this.dial.getBoundingClientRect();
    const x = (event.clientX - box.left) / box.width * 120 - 60, y = (event.clientY - box.top) / box.height * 120 - 60;
    const alpha = Math.round(Math.min(1, Math.hypot(x, y) / 50) * 100) / 100;
    let phi = Math.atan2(-y, x);
    if (phi < 0) phi += TWO_PI;
    phi = Math.round(phi * 1000) / 1000; // rad, to the mrad
    for (const k of this.links()) Object.assign(this.design.model.links[k], { alpha: alpha, phi: phi });
    this.drawDial();
    for (const row of this.rows) row.refresh();
  }

  /* Arrow keys: left/right turn φ by π/16, up/down change α by 0.05. */
  key_(event) {
    const links = this.links();
    if (!links.length) return;
    const link = this.design.model.links[links[0]];
    let alpha = link.alpha || 0, phi = link.phi || 0;
    if (event.key === "ArrowLeft") phi = (phi + Math.PI / 16) % TWO_PI;
    else if (event.key === "ArrowRight") phi = (phi - Math.PI / 16 + TWO_PI) % TWO_PI;
    else if (event.key === "ArrowUp") alpha = Math.min(1, alpha + 0.05);
    else if (event.key === "ArrowDown") alpha = Math.max(0, alpha - 0.05);
    else return;
    phi = Math.round(phi * 1000) / 1000;
    alpha = Math.round(alpha * 100) / 100;
    event.preventDefault();
    this.design.setLinks(links, { alpha: alpha, phi: phi });
  }
}
