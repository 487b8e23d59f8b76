"use strict";
/* A MAP-Elites run's archive as a heatmap over two of its measures: each cell coloured by its objective,
   a click opens the cell's creature in the detail view. A grid shows, for each pair of bins, the best cell
   over the other measures; a CVT is drawn as the tessellation of its centroids (exact for two measures,
   of the centroids projected on the pair for more). */

const archiveView = { x: 0, y: 1, raster: null, spots: [] };
const VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"];
const ARCHIVE_MARGIN = { left: 58, right: 12, top: 12, bottom: 44 };
const CVT_RASTER = 120;

function viridis(t) {
  const u = Math.max(0, Math.min(1, t)) * (VIRIDIS.length - 1);
  const k = Math.min(Math.floor(u), VIRIDIS.length - 2), f = u - k;
  const a = VIRIDIS[k], b = VIRIDIS[k + 1];
  const mix = (i) => Math.round(parseInt(a.substr(i, 2), 16) * (1 - f) + parseInt(b.substr(i, 2), 16) * f);
  return "rgb(" + mix(1) + "," + mix(3) + "," + mix(5) + ")";
}

function archiveRange() {
  const values = EVO.archive.cells.map((c) => c.objective);
  const low = Math.min(...values), high = Math.max(...values);
  return { low: low, high: high > low ? high : low + 1 };
}

/* (u, v) in [0, 1]^2 of a point in measure units, for the shown pair (v = 0.5 with one measure). */
function scaled(point) {
  const m = EVO.archive.measures;
  const u = (point[archiveView.x] - m[archiveView.x].low) / (m[archiveView.x].high - m[archiveView.x].low);
  if (archiveView.y < 0) return [u, 0.5];
  return [u, (point[archiveView.y] - m[archiveView.y].low) / (m[archiveView.y].high - m[archiveView.y].low)];
}

/* The cell shown at (u, v), or null for an empty one. */
function archiveCellAt(u, v) {
  const A = EVO.archive;
  if (u < 0 || u > 1 || v < 0 || v > 1) return null;
  if (A.kind === "grid") {
    const bx = A.measures[archiveView.x].bins, by = archiveView.y < 0 ? 1 : A.measures[archiveView.y].bins;
    const i = Math.min(Math.floor(u * bx), bx - 1), j = Math.min(Math.floor(v * by), by - 1);
    return archiveView.best.get(i + "," + j) || null;
  }
  const points = archiveView.points;
  let best = -1, distance = Infinity;
  for (let k = 0; k < points.length; k++) {
    const du = points[k][0] - u, dv = points[k][1] - v, d = du * du + dv * dv;
    if (d < distance) { distance = d; best = k; }
  }
  return archiveView.byIndex.get(best) || null;
}

/* The best cell of each pair of bins of the shown measures (grid). */
function gridBests() {
  const best = new Map();
  for (const cell of EVO.archive.cells) {
    const key = cell.grid[archiveView.x] + "," + (archiveView.y < 0 ? 0 : cell.grid[archiveView.y]);
    const other = best.get(key);
    if (!other || cell.objective > other.objective) best.set(key, cell);
  }
  return best;
}

function plotArea(w, h) {
  const m = ARCHIVE_MARGIN;
  return { x: m.left, y: m.top, w: w - m.left - m.right, h: h - m.top - m.bottom };
}

/* The centre of a cell on the canvas (CSS px), in the shown projection: what a click on it hits. */
function archivePoint(index) {
  const A = EVO.archive, cell = archiveView.byIndex.get(index);
  const canvas = document.getElementById("archive-canvas");
  const area = plotArea(canvas.clientWidth, canvas.clientHeight);
  let u, v;
  if (A.kind === "grid") {
    const bx = A.measures[archiveView.x].bins, by = archiveView.y < 0 ? 1 : A.measures[archiveView.y].bins;
    u = (cell.grid[archiveView.x] + 0.5) / bx;
    v = ((archiveView.y < 0 ? 0 : cell.grid[archiveView.y]) + 0.5) / by;
  } else {
    [u, v] = scaled(A.centroids[index]);
  }
  return { x: area.x + u * area.w, y: area.y + (1 - v) * area.h };
}

function drawArchive() {
  const A = EVO.archive;
  const canvas = document.getElementById("archive-canvas");
  const view = fitCanvas(canvas), ctx = view.ctx;
  const area = plotArea(view.w, view.h), range = archiveRange();
  ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, view.w, view.h);
  ctx.fillStyle = "#e9ecef"; ctx.fillRect(area.x, area.y, area.w, area.h);
  archiveView.best = A.kind === "grid" ? gridBests() : null;
  archiveView.points = A.kind === "grid" ? null : A.centroids.map(scaled);  // the pair's (u, v) of each centroid
  const colourOf = (cell) => viridis((cell.objective - range.low) / (range.high - range.low));
  if (A.kind === "grid") {
    const bx = A.measures[archiveView.x].bins, by = archiveView.y < 0 ? 1 : A.measures[archiveView.y].bins;
    const cw = area.w / bx, ch = area.h / by;
    for (const [key, cell] of archiveView.best) {
      const [i, j] = key.split(",").map(Number);
      ctx.fillStyle = colourOf(cell);
      ctx.fillRect(area.x + i * cw, area.y + area.h - (j + 1) * ch, Math.ceil(cw), Math.ceil(ch));
    }
    ctx.strokeStyle = "rgba(255,255,255,0.6)"; ctx.lineWidth = 1;
    for (let i = 1; i < bx; i++) { ctx.beginPath(); ctx.moveTo(area.x + i * cw, area.y); ctx.lineTo(area.x + i * cw, area.y + area.h); ctx.stroke(); }
    for (let j = 1; j < by; j++) { ctx.beginPath(); ctx.moveTo(area.x, area.y + j * ch); ctx.lineTo(area.x + area.w, area.y + j * ch); ctx.stroke(); }
  } else {
    const n = CVT_RASTER, cw = area.w / n, ch = area.h / n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const cell = archiveCellAt((i + 0.5) / n, (j + 0.5) / n);
        if (!cell) continue;
        ctx.fillStyle = colourOf(cell);
        ctx.fillRect(area.x + i * cw, area.y + area.h - (j + 1) * ch, Math.ceil(cw), Math.ceil(ch));
      }
    }
    ctx.fillStyle = "rgba(33,37,41,0.5)";
    for (const [u, v] of archiveView.points) {
      ctx.fillRect(area.x + u * area.w - 1, area.y + (1 - v) * area.h - 1, 2, 2);
    }
  }
  ctx.strokeStyle = "#adb5bd"; ctx.strokeRect(area.x, area.y, area.w, area.h);
  ctx.fillStyle = "#495057"; ctx.font = "11px system-ui, sans-serif";
  const mx = A.measures[archiveView.x];
  ctx.textAlign = "center";
  for (const value of axisTicks(archiveView.x)) {
    const u = (value - mx.low) / (mx.high - mx.low);
    ctx.fillText(fmt(value, 3), area.x + area.w * u, area.y + area.h + 14);
  }
  ctx.font = "12px system-ui, sans-serif"; ctx.fillStyle = "#343a40";
  ctx.fillText(mx.name, area.x + area.w / 2, area.y + area.h + 34);
  if (archiveView.y >= 0) {
    const my = A.measures[archiveView.y];
    ctx.font = "11px system-ui, sans-serif"; ctx.fillStyle = "#495057"; ctx.textAlign = "right";
    for (const value of axisTicks(archiveView.y)) {
      const v = (value - my.low) / (my.high - my.low);
      ctx.fillText(fmt(value, 3), area.x - 5, area.y + area.h * (1 - v) + 4);
    }
    ctx.save(); ctx.translate(14, area.y + area.h / 2); ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "center"; ctx.font = "12px system-ui, sans-serif"; ctx.fillStyle = "#343a40";
    ctx.fillText(my.name, 0, 0); ctx.restore();
  }
}

/* The tick values of measure k's axis: five evenly spaced, or whole numbers when every cell's value of
   the measure is one (masses: no tick at 5.25 masses). */
function axisTicks(k) {
  const m = EVO.archive.measures[k];
  const whole = EVO.archive.cells.every((c) => Number.isInteger(c.measures[k]));
  if (!whole) return [0, 1, 2, 3, 4].map((i) => m.low + (m.high - m.low) * i / 4);
  const step = Math.max(1, Math.ceil((m.high - m.low) / 10));  // at most about ten
  const ticks = [];
  for (let value = Math.ceil(m.low); value <= m.high; value += step) ticks.push(value);
  return ticks;
}

function cellText(cell) {
  const A = EVO.archive;
  const measures = A.measures.map((m, k) => m.name + " " + fmt(cell.measures[k], 4)).join(" · ");
  const fitness = fmt(cell.fitness[0], 5);
  return "cell " + cell.index + ": " + A.objective + " " + fitness + " · " + measures + " · " + cell.id;
}

function buildArchive() {
  const A = EVO.archive;
  const section = document.getElementById("archive");
  if (!A || !A.cells.length) { section.hidden = true; return; }
  section.hidden = false;
  document.getElementById("nav-archive").hidden = false;
  archiveView.byIndex = new Map(A.cells.map((c) => [c.index, c]));
  archiveView.y = A.measures.length > 1 ? 1 : -1;
  const xs = document.getElementById("archive-x"), ys = document.getElementById("archive-y");
  A.measures.forEach((m, k) => {
    xs.append(el("option", { value: String(k), text: m.name }));
    ys.append(el("option", { value: String(k), text: m.name }));
  });
  xs.value = String(archiveView.x);
  ys.value = String(Math.max(archiveView.y, 0));
  ys.disabled = A.measures.length < 2;
  const redraw = () => { archiveView.x = Number(xs.value); archiveView.y = A.measures.length > 1 ? Number(ys.value) : -1; drawArchive(); };
  xs.addEventListener("change", redraw);
  ys.addEventListener("change", redraw);
  const range = archiveRange();
  const stops = VIRIDIS.map((c, k) => c + " " + Math.round(100 * k / (VIRIDIS.length - 1)) + "%").join(", ");
  document.getElementById("archive-legend").replaceChildren(
    el("span", { text: fmt(range.low, 4) }),
    el("span", { class: "ramp", style: "background: linear-gradient(to right, " + stops + ")" }),
    el("span", { text: fmt(range.high, 4) + " " + A.objective + (A.maximise ? "" : " (negated: higher is better)") }),
  );
  const stats = A.stats || {};
  document.getElementById("archive-figures").textContent = stats.num_elites + " of " + A.cells_total +
    " cells occupied · coverage " + fmt(stats.coverage, 3) + " · QD score " + fmt(stats.qd_score, 6) +
    " · best " + fmt(stats.obj_max, 5) + " · mean " + fmt(stats.obj_mean, 5);
  const canvas = document.getElementById("archive-canvas");
  const label = document.getElementById("archive-label");
  const hit = (event) => {
    const box = canvas.getBoundingClientRect();
    const area = plotArea(canvas.clientWidth, canvas.clientHeight);
    return archiveCellAt((event.clientX - box.left - area.x) / area.w, 1 - (event.clientY - box.top - area.y) / area.h);
  };
  canvas.addEventListener("mousemove", (event) => {
    const cell = hit(event);
    label.textContent = cell ? cellText(cell) : "an empty cell";
    canvas.style.cursor = cell && cell.key ? "pointer" : "default";
  });
  canvas.addEventListener("click", (event) => {
    const cell = hit(event);
    if (cell && cell.key) openDetail(cell.key);
  });
  drawArchive();
  window.addEventListener("resize", drawArchive);
}
