/* Drawing the stage: sky, ground shape, walls, terrain bars, the distance ruler, the ghost of the previous
   attempt, the centroid's trail, polygons (classic files' colours, curvy ones as closed Catmull-Rom
   curves), springs, muscles, masses, the selection and the grabbed mass. World px, y up; the view maps
   them to canvas px (scale s, origin ox/oy). Nothing here changes the design. */

import { polyCorners, terrainLines } from "./design.js";

export const COLOURS = {
  sky: "#f7f9fc", ground: "#ece4d3", groundLine: "#8d7b5a", grid: "#dde3ea", spring: "#3d434a",
  mass: "#212529", fixed: "#c92a2a", selected: "#f08c00", halo: "rgba(240,140,0,0.35)", wall: "#868e96", terrain: "#6b5b3e",
  band: "rgba(28,126,214,0.12)", bandLine: "#1c7ed6", poly: "#ced4da", exploded: "#e03131",
  grab: "#d9480f", ghost: "rgba(73,80,87,0.28)", trail: "#e8590c", ruler: "#495057", start: "#1c7ed6",
};

const CENTROIDS = new WeakMap(); // a received frame's centroid, computed once (frames are never changed)

/* The centroid ([x, y] px) of positions [[x, y], ...]. */
export function centroid(points) {
  let c = CENTROIDS.get(points);
  if (c) return c;
  let x = 0, y = 0;
  for (const p of points) { x += p[0]; y += p[1]; }
  c = [x / points.length, y / points.length];
  CENTROIDS.set(points, c);
  return c;
}

export class View {
  constructor(canvas) {
    this.canvas = canvas;
    this.s = 1;
    this.ox = 60;
    this.oy = canvas.height - 60;
    this.floorAt = this.oy; // canvas px of y = 0 when the design was put in view
  }

  sx(x) { return this.ox + x * this.s; }

  sy(y) { return this.oy - y * this.s; }

  /* World px of a canvas px. */
  world(cx, cy) { return { x: (cx - this.ox) / this.s, y: (this.oy - cy) / this.s }; }

  /* World px of a pointer event. */
  eventWorld(event) {
    const box = this.canvas.getBoundingClientRect();
    const cx = (event.clientX - box.left) * this.canvas.width / box.width;
    const cy = (event.clientY - box.top) * this.canvas.height / box.height;
    return this.world(cx, cy);
  }

  /* Client (page viewport) px of a world point: what a script's pointer must aim at. */
  client(x, y) {
    const box = this.canvas.getBoundingClientRect();
    return { x: box.left + this.sx(x) * box.width / this.canvas.width, y: box.top + this.sy(y) * box.height / this.canvas.height };
  }

  zoom(factor, cx, cy) {
    const p = this.world(cx, cy);
    this.s = Math.min(8, Math.max(0.1, this.s * factor));
    this.ox = cx - p.x * this.s;
    this.oy = cy + p.y * this.s;
  }

  /* Keep the centre of `points` ([[x, y], ...]) in the middle third of the canvas across, and in
     sight up and down (the floor stays where it was put unless the creature flies off the top). */
  follow(points, floorAt, world) {
    if (!points || !points.length) return;
    const [x, y] = centroid(points);
    const cx = this.sx(x), cy = this.sy(y);
    const w = this.canvas.width, h = this.canvas.height;
    if (cx > w * 2 / 3) this.ox -= cx - w * 2 / 3;
    if (cx < w / 3) this.ox += w / 3 - cx;
    if (cy < h * 0.15) this.oy += h * 0.15 - cy;
    else if (floorAt !== undefined && this.oy > floorAt && cy > h / 2) this.oy = Math.max(floorAt, this.oy - (cy - h / 2));
    this.keepWalls(world);
  }

  /* Side walls that fit the canvas stay in sight: the camera never hides one. */
  keepWalls(world) {
    if (!world || typeof world.width !== "number") return;
    const span = world.width * this.s, w = this.canvas.width;
    if (span <= w - 20) this.ox = Math.min(10, Math.max(w - 10 - span, this.ox));
  }

  /* Draw everything: `points` are the positions shown ([[x, y], ...]); `scene` says what else. */
  draw(model, points, scene) {
    const ctx = this.canvas.getContext("2d");
    const w = this.canvas.width, h = this.canvas.height;
    ctx.fillStyle = COLOURS.sky;
    ctx.fillRect(0, 0, w, h);
    if (scene.grid) this.drawGrid(ctx, scene.grid);
    this.drawGround(ctx, model.world || {});
    this.drawTerrain(ctx, model.world || {});
    if (scene.start) this.drawRuler(ctx, scene.start, points);
    if (scene.ghost) this.drawGhost(ctx, model, scene.ghost);
    if (scene.trail) this.drawTrail(ctx, scene.trail);
    this.drawPolys(ctx, model, points, scene);
    this.drawLinks(ctx, model, points, scene);
    this.drawMasses(ctx, model, points, scene);
    if (scene.corners && scene.corners.length) this.drawCorners(ctx, points, scene.corners);
    if (!model.masses.length && scene.hint) {
      ctx.fillStyle = COLOURS.wall;
      ctx.font = "15px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.fillText(scene.hint, w / 2, h / 3);
      ctx.textAlign = "start";
    }
    if (scene.band) {
      const b = scene.band;
      ctx.fillStyle = COLOURS.band; ctx.strokeStyle = COLOURS.bandLine; ctx.lineWidth = 1;
      const x = this.sx(Math.min(b.x1, b.x2)), y = this.sy(Math.max(b.y1, b.y2));
      ctx.fillRect(x, y, Math.abs(b.x2 - b.x1) * this.s, Math.abs(b.y2 - b.y1) * this.s);
      ctx.strokeRect(x, y, Math.abs(b.x2 - b.x1) * this.s, Math.abs(b.y2 - b.y1) * this.s);
    }
    if (scene.rubber) {
      ctx.strokeStyle = COLOURS.bandLine; ctx.setLineDash([4, 4]); ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(this.sx(scene.rubber.x1), this.sy(scene.rubber.y1));
      ctx.lineTo(this.sx(scene.rubber.x2), this.sy(scene.rubber.y2));
      ctx.stroke(); ctx.setLineDash([]);
    }
  }

  /* The distance ruler along the floor: ticks every 50, 100, 200 or 500 px from the start (the design's
     centroid x), labelled with the distance from it, and the centroid's distance now. */
  drawRuler(ctx, start, points) {
    const w = this.canvas.width, base = this.sy(0);
    const every = [50, 100, 200, 500, 1000].find((d) => d * this.s >= 70) || 2000;
    const left = this.world(0, 0).x, right = this.world(w, 0).x;
    ctx.strokeStyle = COLOURS.ruler; ctx.fillStyle = COLOURS.ruler; ctx.lineWidth = 1;
    ctx.font = "11px system-ui, sans-serif"; ctx.textAlign = "center";
    for (let d = Math.ceil((left - start) / every) * every; start + d <= right; d += every) {
      const x = this.sx(start + d);
      ctx.beginPath(); ctx.moveTo(x, base + 2); ctx.lineTo(x, base + 9); ctx.stroke();
      ctx.fillText(d === 0 ? "start" : `${d > 0 ? "+" : ""}${d}`, x, base + 21);
    }
    ctx.strokeStyle = COLOURS.start; ctx.setLineDash([5, 4]);
    ctx.beginPath(); ctx.moveTo(this.sx(start), 0); ctx.lineTo(this.sx(start), base); ctx.stroke(); ctx.setLineDash([]);
    if (points.length) {
      const [x] = centroid(points), gone = x - start;
      ctx.fillStyle = COLOURS.trail; ctx.font = "bold 12px system-ui, sans-serif";
      ctx.beginPath(); ctx.moveTo(this.sx(x), base + 1); ctx.lineTo(this.sx(x) - 6, base + 10); ctx.lineTo(this.sx(x) + 6, base + 10); ctx.fill();
      ctx.fillText(`${gone >= 0 ? "+" : ""}${gone.toFixed(1)} px`, this.sx(x), base + 38);
    }
    ctx.textAlign = "start";
  }

  /* The previous attempt at the frame shown: its springs, faint. */
  drawGhost(ctx, model, ghost) {
    ctx.strokeStyle = COLOURS.ghost; ctx.lineWidth = 2;
    for (const link of ghost.links) {
      const p = ghost.points[link.a], q = ghost.points[link.b];
      if (!p || !q || p[0] === null || q[0] === null) continue;
      ctx.beginPath(); ctx.moveTo(this.sx(p[0]), this.sy(p[1])); ctx.lineTo(this.sx(q[0]), this.sy(q[1])); ctx.stroke();
    }
  }

  /* The centroid's path so far, [[x, y], ...] px. */
  drawTrail(ctx, trail) {
    if (trail.length < 2) return;
    ctx.strokeStyle = COLOURS.trail; ctx.lineWidth = 1.5; ctx.setLineDash([2, 3]);
    ctx.beginPath();
    trail.forEach(([x, y], i) => (i ? ctx.lineTo(this.sx(x), this.sy(y)) : ctx.moveTo(this.sx(x), this.sy(y))));
    ctx.stroke(); ctx.setLineDash([]);
  }

  /* A polygon being drawn: its corners so far, joined. */
  drawCorners(ctx, points, corners) {
    ctx.strokeStyle = COLOURS.bandLine; ctx.lineWidth = 2; ctx.setLineDash([4, 3]);
    ctx.beginPath();
    corners.forEach((i, k) => (k ? ctx.lineTo(this.sx(points[i][0]), this.sy(points[i][1])) : ctx.moveTo(this.sx(points[i][0]), this.sy(points[i][1]))));
    ctx.stroke(); ctx.setLineDash([]);
  }

  drawGrid(ctx, step) {
    const w = this.canvas.width, h = this.canvas.height, g = step * this.s;
    if (g < 5) return;
    ctx.fillStyle = COLOURS.grid;
    const x0 = this.ox % g, y0 = this.oy % g;
    for (let x = x0; x < w; x += g) for (let y = y0; y < h; y += g) ctx.fillRect(x - 1, y - 1, 2, 2);
  }

  drawGround(ctx, world) {
    const w = this.canvas.width, h = this.canvas.height;
    const left = this.world(0, 0).x, right = this.world(w, 0).x;
    const line = groundOutline(world.ground, left, right);
    ctx.beginPath();
    ctx.moveTo(this.sx(line[0][0]), h);
    for (const [x, y] of line) ctx.lineTo(this.sx(x), this.sy(y));
    ctx.lineTo(this.sx(line[line.length - 1][0]), h);
    ctx.closePath();
    ctx.fillStyle = COLOURS.ground; ctx.fill();
    ctx.beginPath();
    line.forEach(([x, y], i) => (i ? ctx.lineTo(this.sx(x), this.sy(y)) : ctx.moveTo(this.sx(x), this.sy(y))));
    ctx.strokeStyle = COLOURS.groundLine; ctx.lineWidth = 2; ctx.stroke();
    ctx.strokeStyle = COLOURS.wall; ctx.lineWidth = 3;
    if (typeof world.width === "number") {
      for (const x of [0, world.width]) {
        ctx.beginPath(); ctx.moveTo(this.sx(x), 0); ctx.lineTo(this.sx(x), h); ctx.stroke();
      }
    }
    if (typeof world.height === "number") {
      ctx.beginPath(); ctx.moveTo(0, this.sy(world.height)); ctx.lineTo(w, this.sy(world.height)); ctx.stroke();
    }
  }

  drawTerrain(ctx, world) {
    ctx.strokeStyle = COLOURS.terrain; ctx.lineWidth = 3; ctx.lineCap = "round";
    for (const line of terrainLines(world.terrain)) {
      ctx.beginPath();
      line.forEach(([x, y], i) => (i ? ctx.lineTo(this.sx(x), this.sy(y)) : ctx.moveTo(this.sx(x), this.sy(y))));
      ctx.stroke();
    }
  }

  drawPolys(ctx, model, points, scene) {
    (model.polys || []).forEach((poly, k) => {
      const corners = polyCorners(poly).filter((i) => i < points.length);
      if (corners.length < 3) return;
      const p = corners.map((i) => [this.sx(points[i][0]), this.sy(points[i][1])]);
      ctx.beginPath();
      ctx.moveTo(p[0][0], p[0][1]);
      const n = p.length;
      for (let i = 0; i < n; i++) {
        const a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n], d = p[(i + 2) % n];
        if (poly.curvy) {
          ctx.bezierCurveTo(b[0] + (c[0] - a[0]) / 6, b[1] + (c[1] - a[1]) / 6,
            c[0] - (d[0] - b[0]) / 6, c[1] - (d[1] - b[1]) / 6, c[0], c[1]);
        } else ctx.lineTo(c[0], c[1]);
      }
      ctx.closePath();
      ctx.fillStyle = poly.color || COLOURS.poly;
      ctx.fill();
      if (scene && scene.selectedPoly === k) { ctx.strokeStyle = COLOURS.selected; ctx.lineWidth = 3; ctx.stroke(); }
    });
  }

  drawLinks(ctx, model, points, scene) {
    const wave = model.wave || {};
    const theta = (wave.phase || 0) + (wave.direction === "reverse" ? -1 : 1) * (wave.omega || 0) * scene.frame;
    model.links.forEach((link, k) => {
      if (link.a >= points.length || link.b >= points.length) return;
      const p = points[link.a], q = points[link.b];
      ctx.beginPath();
      ctx.moveTo(this.sx(p[0]), this.sy(p[1]));
      ctx.lineTo(this.sx(q[0]), this.sy(q[1]));
      if (link.alpha) {
        ctx.strokeStyle = phaseColour(Math.sin(theta + (link.phi || 0)));
        ctx.lineWidth = 2 + 4 * link.alpha;
      } else {
        ctx.strokeStyle = COLOURS.spring;
        ctx.lineWidth = 2;
      }
      if (scene.selectedLinks.has(k)) {
        const colour = ctx.strokeStyle, width = ctx.lineWidth;
        ctx.strokeStyle = COLOURS.halo; ctx.lineWidth = width + 8; ctx.stroke();
        ctx.strokeStyle = colour; ctx.lineWidth = width;
      }
      ctx.stroke();
    });
  }

  drawMasses(ctx, model, points, scene) {
    model.masses.forEach((mass, i) => {
      if (i >= points.length) return;
      const x = this.sx(points[i][0]), y = this.sy(points[i][1]);
      ctx.fillStyle = scene.exploded ? COLOURS.exploded : mass.fixed ? COLOURS.fixed : COLOURS.mass;
      if (mass.fixed) ctx.fillRect(x - 6, y - 6, 12, 12);
      else { ctx.beginPath(); ctx.arc(x, y, 5, 0, 2 * Math.PI); ctx.fill(); }
      if (scene.selectedMasses.has(i)) {
        ctx.strokeStyle = COLOURS.selected; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.arc(x, y, 9, 0, 2 * Math.PI); ctx.stroke();
      }
      if (scene.grabbed === i) {
        ctx.fillStyle = "rgba(217,72,15,0.25)"; ctx.strokeStyle = COLOURS.grab; ctx.lineWidth = 3;
        ctx.beginPath(); ctx.arc(x, y, 13, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      }
    });
  }

  /* The index of the mass nearest world point p within `reach` canvas px (default 14), or -1. */
  massAt(points, p, reach) {
    let best = -1, bestDistance = (reach || 14) / this.s;
    points.forEach((q, i) => {
      const d = Math.hypot(q[0] - p.x, q[1] - p.y);
      if (d <= bestDistance) { best = i; bestDistance = d; }
    });
    return best;
  }

  /* The index of the link within 6 canvas px of world point p, or -1. */
  linkAt(model, points, p) {
    let best = -1, bestDistance = 6 / this.s;
    model.links.forEach((link, k) => {
      const a = points[link.a], b = points[link.b];
      if (!a || !b) return;
      const dx = b[0] - a[0], dy = b[1] - a[1], length2 = dx * dx + dy * dy;
      const t = length2 ? Math.max(0, Math.min(1, ((p.x - a[0]) * dx + (p.y - a[1]) * dy) / length2)) : 0;
      const d = Math.hypot(a[0] + t * dx - p.x, a[1] + t * dy - p.y);
      if (d <= bestDistance) { best = k; bestDistance = d; }
    });
    return best;
  }
}

/* The index of the polygon of `model` whose outline (through `points`) holds world point p, or -1 (the
   last drawn wins). */
export function polyAt(model, points, p) {
  let found = -1;
  (model.polys || []).forEach((poly, k) => {
    const corners = polyCorners(poly).filter((i) => i < points.length).map((i) => points[i]);
    let inside = false;
    for (let i = 0, j = corners.length - 1; i < corners.length; j = i++) {
      const [xi, yi] = corners[i], [xj, yj] = corners[j];
      if ((yi > p.y) !== (yj > p.y) && p.x < (xj - xi) * (p.y - yi) / (yj - yi) + xi) inside = !inside;
    }
    if (corners.length >= 3 && inside) found = k;
  });
  return found;
}

/* Muscle colour for s = sin(θ + φ) in [-1, 1]: blue when contracted, orange when extended. */
function phaseColour(s) {
  const u = (s + 1) / 2;
  return `rgb(${Math.round(28 + 204 * u)},${Math.round(126 - 37 * u)},${Math.round(214 - 202 * u)})`;
}

/* The ground's outline between x = left and x = right (px), as docs/integrators.md defines the shapes. */
export function groundOutline(ground, left, right) {
  const g = ground && !Array.isArray(ground) ? ground : { type: Array.isArray(ground) ? "polyline" : "flat", points: ground };
  if (g.type === "slope") {
    const t = Math.tan((g.angle || 0) * Math.PI / 180);
    return [[left, left * t], [right, right * t]];
  }
  if (g.type === "hills") {
    const out = [], lambda = g.wavelength || 1, step = Math.max(lambda / 32, (right - left) / 600);
    for (let x = left; x <= right + step; x += step) out.push([x, (g.amplitude || 0) * (1 - Math.cos(2 * Math.PI * x / lambda))]);
    return out;
  }
  if (g.type === "steps") {
    const h = g.height || 0, w = g.width || 1, count = Math.min(g.count || 20, 2000);
    const out = [[Math.min(left, 0), 0], [0, 0]];
    for (let j = 1; j <= count; j++) out.push([j * w, (j - 1) * h], [j * w, j * h]);
    out.push([Math.max(right, (count + 1) * w), count * h]);
    return out;
  }
  if (g.type === "polyline" && g.points && g.points.length > 1) {
    const p = g.points;
    return [[Math.min(left, p[0][0]), p[0][1]], ...p, [Math.max(right, p[p.length - 1][0]), p[p.length - 1][1]]];
  }
  return [[left, 0], [right, 0]];
}
