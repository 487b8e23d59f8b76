"use strict";
/* Replays of trajectories recorded by evo's simulator (evo/gallery/data.py encodes them).
   Nothing here simulates: positions come from the recording, the wave angle of each record too;
   drawing only interpolates between records. World units are px with y up; frames are time. */

const EVO = JSON.parse(document.getElementById("evo-data").textContent);
const TWO_PI = 2 * Math.PI;
const RACE_COLOURS = ["#e8590c", "#1c7ed6", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#e03131",
  "#5f3dc4", "#66a80f", "#c2255c"];
const PALETTE = {
  sky: "#f7f9fc", skyTop: "#e7eef8", ground: "#ece4d3", groundLine: "#8d7b5a", marker: "#a89a7c",
  label: "#7c6f55", spring: "#3d434a", mass: "#212529", fixed: "#c92a2a", wall: "#868e96",
  terrain: "#6b5b3e", finish: "#212529",
};

/* Zigzag base-128 varints (base64) -> numbers; arithmetic only, so values beyond 2^31 are safe. */
function decodeVarints(text, count) {
  const raw = atob(text);
  const out = new Float64Array(count);
  let value = 0, scale = 1, j = 0;
  for (let i = 0; i < raw.length && j < count; i++) {
    const byte = raw.charCodeAt(i);
    value += (byte & 127) * scale;
    if (byte & 128) { scale *= 128; continue; }
    out[j++] = value % 2 === 1 ? -(value + 1) / 2 : value / 2;
    value = 0; scale = 1;
  }
  if (j !== count) throw new Error("trajectory data is truncated");
  return out;
}

/* A creature of the payload, decoded once: positions (records x masses x 2, px) and wave angles. */
class Recording {
  constructor(key) {
    const c = EVO.creatures[key];
    this.key = key;
    this.c = c;
    const n = c.masses * 2;
    const deltas = decodeVarints(c.pos, c.records * n);
    this.pos = new Float32Array(deltas.length);
    const acc = new Float64Array(n);
    for (let r = 0; r < c.records; r++) {
      for (let i = 0; i < n; i++) {
        acc[i] += deltas[r * n + i];
        this.pos[r * n + i] = acc[i] / 10;
      }
    }
    const theta = atob(c.theta);
    this.theta = new Float32Array(theta.length);
    for (let r = 0; r < theta.length; r++) this.theta[r] = theta.charCodeAt(r) / 256 * TWO_PI;
    this.frame = new Float32Array(n);
    this.lastFrame = (c.records - 1) * c.step;
  }
  static get(key) {
    Recording.cache = Recording.cache || {};
    if (!Recording.cache[key]) Recording.cache[key] = new Recording(key);
    return Recording.cache[key];
  }
  /* Positions at frame t (interpolated between records), into this.frame. */
  at(t) {
    const c = this.c, n = c.masses * 2;
    const u = Math.max(0, Math.min(t, this.lastFrame)) / c.step;
    const k = Math.min(Math.floor(u), c.records - 1), k2 = Math.min(k + 1, c.records - 1), f = u - k;
    for (let i = 0; i < n; i++) {
      const a = this.pos[k * n + i];
      this.frame[i] = a + (this.pos[k2 * n + i] - a) * f;
    }
    return this.frame;
  }
  thetaAt(t) {
    const r = Math.round(Math.max(0, Math.min(t, this.lastFrame)) / this.c.step);
    return this.theta[Math.min(r, this.theta.length - 1)];
  }
  centroid(p) {
    let x = 0, y = 0, low = Infinity, top = -Infinity;
    const m = this.c.masses;
    for (let i = 0; i < m; i++) {
      x += p[2 * i]; y += p[2 * i + 1];
      low = Math.min(low, p[2 * i + 1]); top = Math.max(top, p[2 * i + 1]);
    }
    return { x: x / m, y: y / m, low: low, top: top };
  }
  progressAt(t) { return this.centroid(this.at(t)).x - this.c.start_x; }
}

/* Muscle colour for phase s = sin(theta + phi) in [-1, 1]: blue where the rest length l0 (1 + alpha beta s)
   is shortest (contracted) to orange where it is longest (extended). */
function phaseColour(s) {
  const u = (s + 1) / 2;
  const r = Math.round(28 + (232 - 28) * u), g = Math.round(126 + (89 - 126) * u), b = Math.round(214 + (12 - 214) * u);
  return "rgb(" + r + "," + g + "," + b + ")";
}

/* A camera: world (x, y) at the canvas centre, s screen px per world px; y up in the world. */
function sx(cam, x) { return (x - cam.x) * cam.s + cam.w / 2; }
function sy(cam, y) { return cam.h / 2 - (y - cam.y) * cam.s; }

function markerSpacing(s) {
  for (const m of [10, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]) if (m * s >= 70) return m;
  return 50000;
}

function groundY(track, x) {
  const g = track.ground;
  if (!g || g.length < 2) return 0;
  if (x <= g[0][0]) return g[0][1];
  for (let i = 1; i < g.length; i++) {
    if (x <= g[i][0]) {
      const a = g[i - 1], b = g[i];
      return b[0] === a[0] ? Math.max(a[1], b[1]) : a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]);
    }
  }
  return g[g.length - 1][1];
}

/* Sky, ground, distance markers (from origin, px), walls, ceiling, terrain and the finish line. */
function drawWorld(ctx, cam, track, origin, finish) {
  const w = cam.w, h = cam.h;
  const sky = ctx.createLinearGradient(0, 0, 0, h);
  sky.addColorStop(0, PALETTE.skyTop); sky.addColorStop(1, PALETTE.sky);
  ctx.fillStyle = sky; ctx.fillRect(0, 0, w, h);
  const left = cam.x - w / 2 / cam.s, right = cam.x + w / 2 / cam.s;
  ctx.beginPath();
  if (track.ground && track.ground.length > 1) {
    ctx.moveTo(0, h);
    const stepPx = 4;
    for (let X = 0; X <= w + stepPx; X += stepPx) {
      const x = left + X / cam.s;
      ctx.lineTo(X, sy(cam, groundY(track, x)));
    }
    ctx.lineTo(w, h);
  } else {
    const y0 = sy(cam, 0);
    ctx.rect(0, y0, w, h - y0);
  }
  ctx.fillStyle = PALETTE.ground; ctx.fill();
  ctx.strokeStyle = PALETTE.groundLine; ctx.lineWidth = 2;
  if (track.ground && track.ground.length > 1) {
    ctx.beginPath();
    for (let X = 0; X <= w + 4; X += 4) ctx.lineTo(X, sy(cam, groundY(track, left + X / cam.s)));
    ctx.stroke();
  }
  if (track.floor) {
    ctx.beginPath(); ctx.moveTo(0, sy(cam, 0)); ctx.lineTo(w, sy(cam, 0)); ctx.stroke();
  }
  const m = markerSpacing(cam.s);
  ctx.font = "11px system-ui, sans-serif"; ctx.textAlign = "center";
  for (let k = Math.ceil((left - origin) / m); origin + k * m <= right; k++) {
    const x = origin + k * m, X = sx(cam, x), Y = sy(cam, groundY(track, x));
    ctx.strokeStyle = PALETTE.marker; ctx.lineWidth = k === 0 ? 2 : 1;
    ctx.beginPath(); ctx.moveTo(X, Y); ctx.lineTo(X, Y + 8); ctx.stroke();
    ctx.fillStyle = PALETTE.label; ctx.fillText((k * m) + (k === 0 ? " px" : ""), X, Y + 20);
  }
  ctx.strokeStyle = PALETTE.wall; ctx.lineWidth = 3;
  if (track.width != null) {
    for (const x of [0, track.width]) {
      const X = sx(cam, x);
      if (X > -4 && X < w + 4) { ctx.beginPath(); ctx.moveTo(X, 0); ctx.lineTo(X, h); ctx.stroke(); }
    }
  }
  if (track.height != null) {
    const Y = sy(cam, track.height);
    if (Y > -4 && Y < h + 4) { ctx.beginPath(); ctx.moveTo(0, Y); ctx.lineTo(w, Y); ctx.stroke(); }
  }
  ctx.strokeStyle = PALETTE.terrain; ctx.lineWidth = 3; ctx.lineCap = "round";
  for (const line of track.terrain || []) {
    ctx.beginPath();
    line.forEach((p, i) => (i ? ctx.lineTo(sx(cam, p[0]), sy(cam, p[1])) : ctx.moveTo(sx(cam, p[0]), sy(cam, p[1]))));
    ctx.stroke();
  }
  if (finish != null) {
    const X = sx(cam, finish);
    if (X > -10 && X < w + 10) {
      for (let Y = 0, i = 0; Y < h; Y += 8, i++) {
        ctx.fillStyle = i % 2 ? "#fff" : PALETTE.finish; ctx.fillRect(X - 3, Y, 3, 8);
        ctx.fillStyle = i % 2 ? PALETTE.finish : "#fff"; ctx.fillRect(X, Y, 3, 8);
      }
    }
  }
}

/* A closed outline through the screen points pts ([[X, Y], ...]): straight edges, or (curvy) the closed
   uniform Catmull-Rom spline through them as one cubic Bezier per edge, whose control points are
   p[i] + (p[i+1] - p[i-1]) / 6 and p[i+1] - (p[i+2] - p[i]) / 6 (evo.model.closed_curve, the same). */
function tracePolygon(ctx, pts, curvy) {
  const k = pts.length;
  ctx.beginPath();
  ctx.moveTo(pts[0][0], pts[0][1]);
  for (let i = 0; i < k; i++) {
    const a = pts[(i + k - 1) % k], b = pts[i], c = pts[(i + 1) % k], d = pts[(i + 2) % k];
    if (curvy) {
      ctx.bezierCurveTo(b[0] + (c[0] - a[0]) / 6, b[1] + (c[1] - a[1]) / 6,
        c[0] - (d[0] - b[0]) / 6, c[1] - (d[1] - b[1]) / 6, c[0], c[1]);
    } else {
      ctx.lineTo(c[0], c[1]);
    }
  }
  ctx.closePath();
}

/* One creature: its polygons filled in their colours (fainter in a race), then springs as thin dark
   lines, muscles as thick lines coloured by phase (or all in `colour` in a race), masses as dots, fixed
   masses as red squares. */
function drawCreature(ctx, cam, rec, p, theta, colour) {
  const c = rec.c, s = cam.s;
  for (const poly of c.polys || []) {
    tracePolygon(ctx, poly.masses.map((i) => [sx(cam, p[2 * i]), sy(cam, p[2 * i + 1])]), poly.curvy);
    ctx.fillStyle = poly.color;
    ctx.globalAlpha = colour ? 0.45 : 1;
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  ctx.lineCap = "round";
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < c.a.length; i++) {
      const muscle = c.muscle[i] === 1;
      if ((pass === 0) === muscle) continue;
      const a = c.a[i], b = c.b[i];
      ctx.beginPath();
      ctx.moveTo(sx(cam, p[2 * a]), sy(cam, p[2 * a + 1]));
      ctx.lineTo(sx(cam, p[2 * b]), sy(cam, p[2 * b + 1]));
      if (muscle) {
        ctx.strokeStyle = colour || phaseColour(Math.sin(theta + c.phi[i]));
        ctx.lineWidth = Math.max(2.5, Math.min(6, 3.5 * s));
      } else {
        ctx.strokeStyle = colour ? colour : PALETTE.spring;
        ctx.globalAlpha = colour ? 0.55 : 1;
        ctx.lineWidth = Math.max(1, Math.min(3, 1.5 * s));
      }
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
  }
  const r = Math.max(2, Math.min(6, 3 * s));
  ctx.fillStyle = colour || PALETTE.mass;
  for (let i = 0; i < c.masses; i++) {
    ctx.beginPath(); ctx.arc(sx(cam, p[2 * i]), sy(cam, p[2 * i + 1]), r, 0, TWO_PI); ctx.fill();
  }
  ctx.fillStyle = PALETTE.fixed;
  for (const i of c.fixed) ctx.fillRect(sx(cam, p[2 * i]) - r, sy(cam, p[2 * i + 1]) - r, 2 * r, 2 * r);
}

/* World y at the view's centre: the ground (y = low) at 80 % of the height, unless the creature's top
   would leave the view (a jump), in which case the camera rises with it. */
function cameraY(low, top, h, s) { return Math.max(low + 0.3 * h / s, top - 0.42 * h / s); }

/* Size a canvas for the device pixel ratio; returns {w, h} in CSS px. */
function fitCanvas(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return { ctx: ctx, w: w, h: h };
}

/* Scale (screen px per px) that shows a creature of span [width, height] in a w x h view. */
function fitScale(span, w, h, fill) {
  return Math.max(0.03, Math.min(4, fill * w / Math.max(span[0], 20), fill * h / Math.max(span[1] + 20, 30)));
}

/* A replay on one canvas: play/pause, speed (sim frames per 1/60 s), loop, follow camera. */
class Player {
  constructor(canvas, key, options) {
    this.canvas = canvas;
    this.options = Object.assign({ loop: true, follow: true, fill: 0.6, label: false, page: false }, options || {});
    this.t = 0; this.speed = 1; this.playing = true; this.visible = true;
    this.setCreature(key);
  }
  setCreature(key) {
    this.rec = key ? Recording.get(key) : null;
    this.t = 0; this.smoothLow = null;
  }
  advance(ms) {
    if (!this.rec || !this.playing) return;
    this.t += ms * 0.06 * this.speed;
    if (this.t > this.rec.lastFrame) {
      if (this.options.loop) this.t = 0; else { this.t = this.rec.lastFrame; this.playing = false; }
    }
  }
  camera(w, h, p) {
    const rec = this.rec, c = rec.c, s = fitScale(c.span, w, h, this.options.fill);
    const centre = rec.centroid(p);
    let low = 0;
    if (EVO.track.ground || (EVO.track.terrain || []).length || EVO.track.width != null) {
      this.smoothLow = this.smoothLow == null ? centre.low : this.smoothLow + (centre.low - this.smoothLow) * 0.1;
      low = this.smoothLow;
    }
    const x = this.options.follow ? centre.x : (c.reach[0] + c.reach[1]) / 2;
    const scale = this.options.follow ? s : Math.min(s, 0.9 * w / (c.reach[1] - c.reach[0] + 40));
    return { x: x, y: cameraY(low, centre.top, h, scale), s: scale, w: w, h: h };
  }
  draw() {
    if (!this.rec) {
      const blank = fitCanvas(this.canvas);
      blank.ctx.fillStyle = PALETTE.sky; blank.ctx.fillRect(0, 0, blank.w, blank.h);
      blank.ctx.fillStyle = PALETTE.label; blank.ctx.font = "14px system-ui, sans-serif"; blank.ctx.textAlign = "center";
      blank.ctx.fillText("no creature of this generation was kept", blank.w / 2, blank.h / 2);
      return;
    }
    const view = fitCanvas(this.canvas), p = this.rec.at(this.t);
    const cam = this.camera(view.w, view.h, p);
    const finish = this.rec.c.finish != null ? this.rec.c.start_x + this.rec.c.finish : EVO.track.finish != null ? this.rec.c.start_x + EVO.track.finish : null;
    drawWorld(view.ctx, cam, EVO.track, this.rec.c.start_x, finish);
    drawCreature(view.ctx, cam, this.rec, p, this.rec.thetaAt(this.t), null);
    if (this.options.label) {
      const ctx = view.ctx;
      ctx.fillStyle = "rgba(33,37,41,0.75)"; ctx.font = "12px system-ui, sans-serif"; ctx.textAlign = "left";
      ctx.fillText("frame " + Math.round(this.t) + "   x " + this.rec.progressAt(this.t).toFixed(0) + " px", 8, 16);
    }
  }
}

/* One animation loop for every player on the page. Players of the page itself (options.page: the cards
   and the evolution replay) hold still while the detail view or the race covers the page. */
const Animator = {
  players: new Set(),
  last: null,
  add(player) { this.players.add(player); return player; },
  tick(now) {
    const ms = Animator.last == null ? 16 : Math.min(100, now - Animator.last);
    Animator.last = now;
    const covered = document.body.classList.contains("modal-open");
    for (const player of Animator.players) {
      if (!player.visible || (covered && player.options && player.options.page)) continue;
      try { player.advance(ms); player.draw(); } catch (error) { player.visible = false; console.error(error); }
    }
    requestAnimationFrame(Animator.tick);
  },
};
