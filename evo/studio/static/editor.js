/* The construction kit's pointer work on the canvas, one mode at a time (the applet's modes and more):
   mass (click: a mass; drag from a mass: a spring to another or a new mass), link (drag or click two
   masses), move (drag masses, rubber-band selection, click a polygon to select it; while playing, grab a
   mass and throw it; paused after playing, a drag makes the pose shown the design), muscle (click a link:
   spring <-> muscle), delete, bar (drag: a fixed terrain bar), polygon (click its corners, then the first
   again). World px, y up; positions the pointer makes are rounded to 0.01 px. */

import { px } from "./design.js";
import { polyAt } from "./view.js";

export const MODES = { mass: "M", link: "L", move: "V", muscle: "U", delete: "D", bar: "B", poly: "P" };
const GRAB_REACH = 28; // canvas px: a mass moving at 60 fps is still caught
const PICK_REACH = 16;

export class Editor {
  constructor(canvas, view, design, player) {
    this.canvas = canvas;
    this.view = view;
    this.design = design;
    this.player = player;
    this.mode = "mass";
    this.snap = false;
    this.grid = 10;
    this.gesture = null; // the pointer gesture under way
    this.band = null; // rubber band {x1, y1, x2, y2}
    this.rubber = null; // spring or bar being drawn {x1, y1, x2, y2}
    this.pendingLink = -1; // link mode: the first mass clicked
    this.corners = []; // polygon mode: the corners clicked so far
    this.grabbed = -1; // the mass held while playing
    this.listeners = [];
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointerup", (e) => this.up(e));
    canvas.addEventListener("pointercancel", (e) => this.up(e));
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = canvas.getBoundingClientRect();
      view.zoom(e.deltaY < 0 ? 1.1 : 1 / 1.1, (e.clientX - box.left) * canvas.width / box.width,
        (e.clientY - box.top) * canvas.height / box.height);
      this.changed();
    }, { passive: false });
  }

  onChange(listener) { this.listeners.push(listener); }

  changed() { for (const listener of this.listeners) listener(); }

  setMode(mode) {
    this.mode = mode;
    this.pendingLink = -1;
    this.corners = [];
    this.changed();
  }

  snapped(p) {
    if (!this.snap) return { x: px(p.x), y: px(p.y) };
    const g = this.grid;
    return { x: Math.round(p.x / g) * g, y: Math.round(p.y / g) * g };
  }

  /* The positions the pointer works on: the shown frame while the simulation is live, else the design. */
  points() {
    return this.player.positions || this.design.model.masses.map((m) => [m.x, m.y]);
  }

  down(event) {
    if (event.button !== 0) return;
    this.canvas.setPointerCapture(event.pointerId);
    this.canvas.focus();
    const p = this.view.eventWorld(event), points = this.points();
    const mass = this.view.massAt(points, p, this.player.playing ? GRAB_REACH : PICK_REACH), link = mass < 0 ? this.view.linkAt(this.design.model, points, p) : -1;
    const d = this.design;
    const g = { start: p, mass: mass, link: link, moved: false, samples: [[p.x, p.y, event.timeStamp]] };
    g.poly = mass < 0 && link < 0 ? polyAt(d.model, points, p) : -1;
    this.gesture = g;
    if (this.mode === "move" && this.player.playing && mass >= 0) {
      g.grab = true;
      this.grabbed = mass;
      this.player.grab(mass, p.x, p.y);
    } else if (this.mode === "move" && this.player.live() && mass >= 0) {
      g.pose = true; // paused after playing: the first move makes the pose shown the design
      g.before = JSON.stringify(d.model);
      if (!d.selected.masses.has(mass)) { if (!event.shiftKey) d.clearSelection(); d.selected.masses.add(mass); }
    } else if (this.mode === "move" && mass >= 0) {
      if (!d.selected.masses.has(mass)) {
        if (!event.shiftKey) d.clearSelection();
        d.selected.masses.add(mass);
      }
      g.before = JSON.stringify(d.model);
      g.origins = [...d.selected.masses].map((i) => [i, d.model.masses[i].x, d.model.masses[i].y]);
    } else if (this.mode === "move" && link >= 0) {
      if (!event.shiftKey) d.clearSelection();
      d.selected.links.add(link);
    } else if (this.mode === "move" && g.poly >= 0) {
      d.clearSelection();
      d.selected.poly = g.poly;
    } else if (this.mode === "move") {
      if (!event.shiftKey) d.clearSelection();
      this.band = { x1: p.x, y1: p.y, x2: p.x, y2: p.y };
    } else if ((this.mode === "mass" || this.mode === "link") && mass >= 0) {
      const q = points[mass];
      this.rubber = { x1: q[0], y1: q[1], x2: q[0], y2: q[1] };
    } else if (this.mode === "bar") {
      const s = this.snapped(p);
      this.rubber = { x1: s.x, y1: s.y, x2: s.x, y2: s.y };
    }
    this.changed();
  }

  move(event) {
    const g = this.gesture;
    if (!g) return;
    const p = this.view.eventWorld(event);
    g.samples.push([p.x, p.y, event.timeStamp]);
    if (g.samples.length > 6) g.samples.shift();
    if (Math.hypot(p.x - g.start.x, p.y - g.start.y) * this.view.s > 3) g.moved = true;
    if (g.pose && g.moved) this.takePose(g);
    if (g.grab) {
      this.player.drag(p.x, p.y);
    } else if (g.origins) {
      const dx = p.x - g.start.x, dy = p.y - g.start.y;
      const anchor = g.origins.find((o) => o[0] === g.mass);
      const to = this.snapped({ x: anchor[1] + dx, y: anchor[2] + dy });
      const ddx = to.x - anchor[1], ddy = to.y - anchor[2];
      for (const [i, x, y] of g.origins) { this.design.model.masses[i].x = px(x + ddx); this.design.model.masses[i].y = px(y + ddy); }
    } else if (this.band) {
      this.band.x2 = p.x; this.band.y2 = p.y;
    } else if (this.rubber) {
      const s = this.mode === "bar" ? this.snapped(p) : p;
      this.rubber.x2 = s.x; this.rubber.y2 = s.y;
    }
    this.changed();
  }

  up(event) {
    const g = this.gesture;
    if (!g) return;
    this.gesture = null;
    const p = this.view.eventWorld(event), d = this.design, points = this.points();
    const target = this.view.massAt(points, p);
    if (g.grab) {
      this.grabbed = -1;
      this.player.release(...this.pointerVelocity(g.samples));
    } else if (g.origins) {
      if (g.moved) d.recordSince(g.before);
    } else if (this.band) {
      const b = this.band;
      this.band = null;
      points.forEach((q, i) => {
        if (q[0] >= Math.min(b.x1, b.x2) && q[0] <= Math.max(b.x1, b.x2) &&
            q[1] >= Math.min(b.y1, b.y2) && q[1] <= Math.max(b.y1, b.y2)) d.selected.masses.add(i);
      });
    } else if (this.mode === "mass") {
      this.rubber = null;
      if (g.mass < 0) {
        const s = this.snapped(p);
        d.addMass(s.x, s.y);
      } else if (g.moved) {
        let other = target;
        if (other < 0) { const s = this.snapped(p); other = d.addMass(s.x, s.y); }
        if (other !== g.mass) this.addLink(g.mass, other);
      }
    } else if (this.mode === "link") {
      this.rubber = null;
      if (g.mass >= 0 && g.moved && target >= 0 && target !== g.mass) this.addLink(g.mass, target);
      else if (g.mass >= 0 && !g.moved) {
        if (this.pendingLink >= 0 && this.pendingLink !== g.mass) { this.addLink(this.pendingLink, g.mass); this.pendingLink = -1; }
        else { this.pendingLink = g.mass; d.clearSelection(); d.selected.masses.add(g.mass); }
      }
    } else if (this.mode === "muscle" && g.link >= 0) {
      d.toggleMuscle(g.link);
      d.clearSelection();
      d.selected.links.add(g.link);
    } else if (this.mode === "delete") {
      if (g.mass >= 0) d.deleteMasses([g.mass]);
      else if (g.link >= 0) d.deleteLink(g.link);
      else if (g.poly >= 0) d.deletePoly(g.poly);
    } else if (this.mode === "poly" && g.mass >= 0) {
      this.addCorner(g.mass);
    } else if (this.mode === "bar" && this.rubber) {
      const r = this.rubber;
      this.rubber = null;
      if (Math.hypot(r.x2 - r.x1, r.y2 - r.y1) > 0) d.addBar(r.x1, r.y1, r.x2, r.y2);
    }
    this.changed();
  }

  /* Polygon mode: one more corner; the first corner again (with three or more) closes the polygon. */
  addCorner(mass) {
    const corners = this.corners;
    if (corners.length >= 3 && mass === corners[0]) {
      const k = this.design.addPoly([...corners]);
      this.corners = [];
      this.design.clearSelection();
      this.design.selected.poly = k;
    } else if (!corners.includes(mass)) corners.push(mass);
  }

  /* The pose shown (paused after playing) becomes the design, at rest: Play starts from it. */
  takePose(g) {
    g.pose = false;
    const shown = this.player.positions;
    if (shown) {
      this.design.model.masses.forEach((m, i) => { m.x = px(shown[i][0]); m.y = px(shown[i][1]); });
      this.player.positions = null;
      this.player.frame = this.player.record = 0;
    }
    const d = this.design;
    g.origins = [...d.selected.masses].map((i) => [i, d.model.masses[i].x, d.model.masses[i].y]);
    g.start = { x: g.origins.find((o) => o[0] === g.mass)[1], y: g.origins.find((o) => o[0] === g.mass)[2] };
    this.posed = true;
  }

  addLink(a, b) {
    const k = this.design.addLink(a, b);
    this.design.clearSelection();
    if (k >= 0) this.design.selected.links.add(k);
  }

  /* The pointer's velocity over its last samples, px/frame at the playing speed. */
  pointerVelocity(samples) {
    if (samples.length < 2) return [0, 0];
    const a = samples[0], b = samples[samples.length - 1];
    const ms = Math.max(1, b[2] - a[2]), perFrame = 1000 / this.player.fps;
    return [(b[0] - a[0]) / ms * perFrame, (b[1] - a[1]) / ms * perFrame];
  }
}
