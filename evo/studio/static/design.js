/* The design being edited: an evo JSON model object (docs/model-format.md), its selection and its
   undo/redo history. Every edit goes through `commit`, which records the previous model and tells the
   listeners (the player reloads, the score is recomputed). Units: px, y up. */

import { exactCopy, parseJson } from "./json.js";

export function emptyModel() {
  return { format: "evo-model", version: 1, name: "creature", masses: [], links: [], wave: {}, world: {}, meta: {} };
}

const clone = exactCopy;

export class Design {
  constructor() {
    this.model = emptyModel();
    this.selected = { masses: new Set(), links: new Set() };
    this.undoStack = [];
    this.redoStack = [];
    this.listeners = [];
  }

  onChange(listener) { this.listeners.push(listener); }

  notify(kind) { for (const listener of this.listeners) listener(kind); }

  /* Replace the whole model (a file opened, an elite): history starts again. */
  load(model) {
    this.model = normalised(clone(model));
    this.undoStack = [];
    this.redoStack = [];
    this.clearSelection();
    this.notify("load");
  }

  /* Apply `change(model)` as one undoable edit. */
  commit(change) {
    const before = JSON.stringify(this.model);
    change(this.model);
    if (JSON.stringify(this.model) === before) return;
    this.undoStack.push(before);
    if (this.undoStack.length > 500) this.undoStack.shift();
    this.redoStack = [];
    this.notify("edit");
  }

  /* Record `before` (a JSON text) as the state to undo to, after a live change such as a drag. */
  recordSince(before) {
    if (JSON.stringify(this.model) === before) return;
    this.undoStack.push(before);
    this.redoStack = [];
    this.notify("edit");
  }

  undo() { this.travel(this.undoStack, this.redoStack); }

  redo() { this.travel(this.redoStack, this.undoStack); }

  travel(from, to) {
    if (!from.length) return;
    to.push(JSON.stringify(this.model));
    this.model = parseJson(from.pop());
    this.clearSelection();
    this.notify("edit");
  }

  clearSelection() {
    this.selected.masses.clear();
    this.selected.links.clear();
  }

  addMass(x, y) {
    this.commit((m) => m.masses.push({ x: x, y: y }));
    return this.model.masses.length - 1;
  }

  /* A spring between masses a and b, its rest length the drawn distance (px). */
  addLink(a, b) {
    if (a === b) return -1;
    const p = this.model.masses[a], q = this.model.masses[b];
    this.commit((m) => m.links.push({ a: a, b: b, rest: Math.hypot(q.x - p.x, q.y - p.y) }));
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
        link.rest = Math.hypot(q.x - p.x, q.y - p.y);
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

  muscles() { return this.model.links.filter((l) => l.alpha).length; }
}

/* A polygon's corners, whichever of its two forms (a plain list, or {masses, color, curvy}). */
export function polyCorners(poly) { return Array.isArray(poly) ? poly : poly.masses || []; }

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
