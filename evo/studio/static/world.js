/* The World, Wave and terrain panels. Every field, default, bound, choice and cursor law comes from
   /api/session (evo's own World and its cursor laws, value = coefficient · p²); the page only shows
   them. The applet's sliders g, f, k move the cursor p and show p and the physical value side by side. */

import { post } from "./api.js";
import { checkRow, el, numberRow, selectRow, shown, sliderRow } from "./controls.js";
import { rounded, terrainLines } from "./design.js";
import { fileText } from "./files.js";

const SYMBOLS = { gravity: "g", damping: "f", stiffness: "k" };
const UNITS = { gravity: "px/frame²", damping: "1/frame", stiffness: "1/frame²" };
const GROUNDS = { flat: [], slope: ["angle"], hills: ["amplitude", "wavelength"], steps: ["height", "width", "count"] };
const HANDLED = new Set(["gravity", "damping", "stiffness", "integrator", "dt", "width", "height", "terrain", "ground"]);

export class WorldPanels {
  constructor(session, design, say) {
    this.session = session;
    this.design = design;
    this.say = say;
    this.rows = [];
    this.build();
  }

  /* The value in force: the design's own world entry, else evo's default. */
  value(field) {
    const world = this.design.model.world || {};
    if (field in world) return world[field];
    const cursor = this.session.cursors[field];
    if (cursor && world[field + "_cursor"] !== undefined) return cursor.coefficient * world[field + "_cursor"] ** 2;
    const spec = this.session.world[field];
    return spec ? spec.value : null;
  }

  add(box, row) { box.append(row.element); this.rows.push(row); }

  build() {
    const world = document.getElementById("world"), d = this.design, specs = this.session.world;
    for (const [field, cursor] of Object.entries(this.session.cursors)) {
      const max = cursor.max || (specs[field + "_cursor"] && specs[field + "_cursor"].high) || 107;
      const symbol = SYMBOLS[field] || field, unit = UNITS[field] || "";
      const toCursor = () => Math.sqrt(Math.max(0, this.value(field)) / cursor.coefficient);
      this.add(world, sliderRow(field, 0, max, 0.1, toCursor, (p) => d.setWorld(field, rounded(cursor.coefficient * p * p)),
        (p) => `p = ${p.toFixed(1)} · ${symbol} = ${shown(cursor.coefficient * p * p)} ${unit}`,
        `${specs[field] ? specs[field].doc : ""}; ${symbol} = ${cursor.coefficient} · p²`));
      this.add(world, numberRow(`${field} value`, () => this.value(field), (v) => d.setWorld(field, v),
        { unit: unit, title: specs[field] ? specs[field].doc : "" }));
    }
    this.add(world, selectRow("integrator", this.session.integrators, () => this.value("integrator"),
      (v) => d.setWorld("integrator", v), specs.integrator && specs.integrator.doc));
    this.add(world, numberRow("dt", () => this.value("dt"), (v) => d.setWorld("dt", v),
      { unit: "frames", title: specs.dt && specs.dt.doc }));
    const more = el("details", {}, el("summary", { text: "more world fields" }));
    world.append(more);
    for (const [field, spec] of Object.entries(specs)) {
      if (HANDLED.has(field) || field.endsWith("_cursor")) continue;
      const row = spec.choices
        ? selectRow(field, spec.choices, () => this.value(field), (v) => d.setWorld(field, v), spec.doc)
        : numberRow(field, () => this.value(field), (v) => d.setWorld(field, v), { title: spec.doc, min: spec.low, max: spec.high });
      this.add(more, row);
    }
    this.buildWave();
    this.buildTerrain();
  }

  buildWave() {
    const box = document.getElementById("wave"), d = this.design;
    const wave = () => d.model.wave || {};
    this.add(box, numberRow("ω", () => wave().omega || 0, (v) => d.setWave("omega", v), { unit: "rad/frame", min: 0, title: "the wave's angular speed" }));
    this.add(box, sliderRow("β", 0, 1, 0.01, () => wave().beta || 0, (v) => d.setWave("beta", v), (v) => `β = ${shown(v)}`, "the wave's amplitude"));
    this.add(box, numberRow("phase θ0", () => wave().phase || 0, (v) => d.setWave("phase", v), { unit: "rad" }));
    this.add(box, selectRow("direction", ["forward", "reverse"], () => wave().direction || "forward", (v) => d.setWave("direction", v)));
    this.add(box, checkRow("autoreverse", () => wave().autoreverse, (v) => d.setWave("autoreverse", v || null),
      "reverse the wave each time a mass touches a side wall"));
  }

  buildTerrain() {
    const box = document.getElementById("terrain"), d = this.design;
    const world = () => d.model.world || {};
    this.add(box, checkRow("walls", () => typeof world().width === "number",
      (on) => d.setWorld("width", on ? 600 : null), "side walls at x = 0 and x = width"));
    this.add(box, numberRow("width", () => world().width ?? "", (v) => d.setWorld("width", v), { unit: "px", min: 0 }));
    this.add(box, numberRow("ceiling", () => world().height ?? "", (v) => d.setWorld("height", v), { unit: "px", min: 0 }));
    const file = el("input", { type: "file", accept: ".xml,.json", hidden: true, "aria-label": "terrain file" });
    file.addEventListener("change", () => this.openTerrain(file));
    const bars = el("output", { class: "readout" });
    box.append(el("div", { class: "row" },
      el("button", { type: "button", text: "Open terrain", onclick: () => file.click() }), file,
      el("button", { type: "button", text: "Clear terrain", onclick: () => d.setWorld("terrain", null) }), bars));
    this.rows.push({ refresh: () => { bars.textContent = `${terrainLines(world().terrain).length} bars (draw: Bar mode)`; } });
    const ground = () => { const g = world().ground; return g && !Array.isArray(g) ? g : { type: g ? "polyline" : "flat" }; };
    this.add(box, selectRow("ground", Object.keys(GROUNDS), () => ground().type, (type) => {
      const g = { type: type };
      for (const key of GROUNDS[type]) g[key] = { angle: 10, amplitude: 20, wavelength: 200, height: 10, width: 60, count: 20 }[key];
      d.setWorld("ground", type === "flat" ? null : g);
    }, "the ground shape"));
    for (const key of ["angle", "amplitude", "wavelength", "height", "width", "count"]) {
      const row = numberRow(`ground ${key}`, () => ground()[key] ?? "", (v) => {
        const g = Object.assign({}, ground());
        g[key] = v;
        d.setWorld("ground", g);
      });
      this.add(box, { element: row.element, refresh: () => { row.element.hidden = !(GROUNDS[ground().type] || []).includes(key); row.refresh(); } });
    }
  }

  async openTerrain(input) {
    const chosen = input.files[0];
    if (!chosen) return;
    try {
      const answer = await post("/api/terrain", { filename: chosen.name, text: await fileText(chosen) });
      const terrain = answer.terrain;
      if (!terrain || !terrainLines(terrain).length) this.say(`${chosen.name}: no fixed bars in this file`);
      else this.design.setWorld("terrain", terrainLines(terrain));
    } catch (error) {
      this.say(error.message);
    }
    input.value = "";
  }

  refresh() { for (const row of this.rows) row.refresh(); }
}
