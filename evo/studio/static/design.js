/* The design being edited: an evo JSON model object (docs/model-format.md), its selection, where it came
   from (`origin.file`: the file Save writes unless told otherwise) and its undo/redo history. Every edit
   goes through `commit`, and every replacement (open, open the best, open refined, New) through
   `replace`: both are undoable and tell the listeners. Units: px, y up. */

import { exactCopy, parseJson } from "./json.js";

/* A new design's wave: the classic files' usual one (amplitude 0.8, about 0.02 cycles/frame), so a new
   muscle moves at once; β = 0 or ω = 0 would leave every muscle still. */
export const NEW_WAVE = Object.freeze({ omega: 0.12, beta: 0.8 });

export function emptyModel(name) {
  return { format: "evo-model", version: 1, name: name || "untitled", masses: [], links: [], wave: { ...NEW_WAVE }, world: {}, meta: {} };
}

/* Numbers as a person would type them: px to 0.01, anything else to 6 significant digits. */
export const px = (x) => Math.round(x * 100) / 100;
export const rounded = (x) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : x);

const clone = exactCopy;

export class Design {
  constructor() {
    this.model = emptyModel();
    this.selected = { masses: new Set(), links: new Set(), poly: -1 };
    this.origin = { file: null };
    this.undoStack = []; // entries {text: the model's JSON, origin}
    this.redoStack = [];
    this.listeners = [];
  }

  onChange(listener) { this.listeners.push(listener); }

  notify(kind) { for (const listener of this.listeners) listener(kind); }

  /* The design the studio starts with (the model it was started on): no history. */
  load(model, origin) {
    this.model = normalised(clone(model));
    this.origin = { file: (origin && origin.file) || null };
    this.undoStack = [];
    this.redoStack = [];
    this.clearSelection();
    this.notify("load");
  }

  /* Replace the whole design (open, open the best, open refined, New) as one undoable edit; `origin.file`
     is the file it came from (null: none, Save then writes its own name). */
  replace(model, origin) {
    this.push(this.undoStack);
    this.redoStack = [];
    this.model = normalised(clone(model));
    this.origin = { file: (origin && origin.file) || null };
    this.clearSelection();
    this.notify("replace");
  }

  push(stack, text) {
    stack.push({ text: text || JSON.stringify(this.model), origin: this.origin });
    if (stack.length > 500) stack.shift();
  }

  /* Apply `change(model)` as one undoable edit. */
  commit(change) {
    const before = JSON.stringify(this.model);
    change(this.model);
    this.recordSince(before);
  }

  /* Record `before` (a JSON text) as the state to undo to, after a live change such as a drag. */
  recordSince(before) {
    if (JSON.stringify(this.model) === before) return;
    this.push(this.undoStack, before);
    this.redoStack = [];
    this.notify("edit");
  }

  undo() { this.travel(this.undoStack, this.redoStack); }

  redo() { this.travel(this.redoStack, this.undoStack); }

  travel(from, to) {
    if (!from.length) return;
    this.push(to);
    const entry = from.pop();
    this.model = parseJson(entry.text);
    this.origin = entry.origin;
    this.clearSelection();
    this.notify("edit");
  }

  clearSelection() {
    this.selected.masses.clear();
    this.selected.links.clear();
    this.selected.poly = -1;
  }

  addMass(x, y) {
    this.commit((m) => m.masses.push({ x: px(x), y: px(y) }));
    return this.model.masses.length - 1;
  }

  /* A spring between masses a and b, its rest length the drawn distance (px). */
  addLink(a, b) {
    if (a === b) return -1;
    const p = this.model.masses[a], q = this.model.masses[b];
    this.commit((m) => m.links.push({ a: a, b: b, rest: px(Math.hypot(q.x - p.x, q.y - p.y)) }));
    return this.model.links.length - 1;
  }

  /* Turn a spring into a muscle (α 0.5, φ 0) and a muscle back into a spring. */
  toggleMuscle(k) {
    this.commit((m) => {
      const link = m.links[k];
      if (link.alpha) { delete link.alpha; delete link.phi; } else { link.alpha = 0.5; link.phi = link.phi || 0; }
    });
  }

  toggleFixed(indices) {
    const list = [...indices];
    if (!list.length) return;
    const fix = !list.every((i) => this.model.masses[i].fixed);
    this.commit((m) => { for (const i of list) { if (fix) m.masses[i].fixed = true; else delete m.masses[i].fixed; } });
  }

  deleteLink(k) {
    this.commit((m) => { m.links.splice(k, 1); });
    this.clearSelection();
  }

  /* Delete masses, their links, and their corners of polygons (a polygon left with < 3 corners goes). */
  deleteMasses(indices) {
    const gone = new Set(indices);
    if (!gone.size) return;
    const newIndex = [];
    let next = 0;
    for (let i = 0; i < this.model.masses.length; i++) newIndex.push(gone.has(i) ? -1 : next++);
    this.commit((m) => {
      m.masses = m.masses.filter((_, i) => !gone.has(i));
      m.links = m.links.filter((l) => !gone.has(l.a) && !gone.has(l.b))
        .map((l) => Object.assign(l, { a: newIndex[l.a], b: newIndex[l.b] }));
      if (m.polys) {
        m.polys = m.polys.map((poly) => {
          const corners = polyCorners(poly).filter((i) => !gone.has(i)).map((i) => newIndex[i]);
          return Array.isArray(poly) ? corners : Object.assign(poly, { masses: corners });
        }).filter((poly) => polyCorners(poly).length >= 3);
      }
    });
    this.clearSelection();
  }

  /* Set link fields (rest, alpha, phi) on the selected links. */
  setLinks(indices, fields) {
    this.commit((m) => {
      for (const k of indices) {
        const link = m.links[k];
        for (const [key, value] of Object.entries(fields)) {
          link[key] = value;
        }
      }
    });
  }

  /* The rest lengths of links set to their drawn lengths (px). */
  restFromDrawing(indices) {
    this.commit((m) => {
      for (const k of indices) {
        const link = m.links[k], p = m.masses[link.a], q = m.masses[link.b];
        link.rest = px(Math.hypot(q.x - p.x, q.y - p.y));
      }
    });
  }

  setWorld(key, value) {
    this.commit((m) => {
      m.world = m.world || {};
      delete m.world[key + "_cursor"];
      if (value === null || value === undefined) delete m.world[key]; else m.world[key] = value;
    });
  }

  setWave(key, value) {
    this.commit((m) => {
      m.wave = m.wave || {};
      if (value === null || value === undefined) delete m.wave[key]; else m.wave[key] = value;
    });
  }

  /* A fixed terrain bar from (x1, y1) to (x2, y2), px: one more polyline in world.terrain. */
  addBar(x1, y1, x2, y2) {
    this.commit((m) => {
      m.world = m.world || {};
      const terrain = terrainLines(m.world.terrain);
      terrain.push([[x1, y1], [x2, y2]]);
      m.world.terrain = terrain;
    });
  }

  setName(name) { this.commit((m) => { m.name = name; }); }

  /* A filled polygon through masses `corners` (drawing only). */
  addPoly(corners, color) {
    this.commit((m) => { m.polys = m.polys || []; m.polys.push({ masses: corners, color: color || "#ffd8a8" }); });
    return this.model.polys.length - 1;
  }

  setPoly(k, fields) {
    this.commit((m) => {
      const poly = Object.assign({ masses: polyCorners(m.polys[k]) }, Array.isArray(m.polys[k]) ? {} : m.polys[k], fields);
      if (!poly.curvy) delete poly.curvy;
      m.polys[k] = poly;
    });
  }

  deletePoly(k) {
    this.selected.poly = -1;
    this.commit((m) => { m.polys.splice(k, 1); if (!m.polys.length) delete m.polys; });
  }

  muscles() { return this.model.links.filter((l) => l.alpha).length; }

  /* Why the muscles stay still, or null: a wave with β = 0 or ω = 0 moves none of them. */
  stillness() {
    const wave = this.model.wave || {};
    if (!this.muscles()) return null;
    if (!wave.beta) return "the muscles stay still: the wave's β is 0 (set β in the Wave panel)";
    if (!wave.omega) return "the muscles stay still: the wave's ω is 0 (set ω in the Wave panel)";
    return null;
  }
}

/* A polygon's corners, whichever of its two forms (a plain list, or {masses, color, curvy}). */
export function polyCorners(poly) { return Array.isArray(poly) ? poly : poly.masses || []; }

/* A file name for a design's name: letters, digits, - and _ kept, the rest as _. */
export function fileStem(name) { return String(name || "").replace(/[^A-Za-z0-9_-]/g, "_") || "untitled"; }

/* world.terrain as a list of polylines (one polyline given alone is wrapped). */
export function terrainLines(terrain) {
  if (!Array.isArray(terrain) || !terrain.length) return [];
  const onePolyline = Array.isArray(terrain[0]) && typeof terrain[0][0] === "number";
  return clone(onePolyline ? [terrain] : terrain);
}

function normalised(model) {
  model.masses = model.masses || [];
  model.links = model.links || [];
  return model;
}
