"use strict";
/* The page's views: elite cards, the detail view, the race and the best of every generation. */

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children || []) if (child != null) node.append(child);
  return node;
}

function fmt(x, digits) {
  if (x == null || !isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return x.toExponential(2);
  return Number(x.toPrecision(digits || 4)).toString();
}

function fitnessText(c) {
  const text = (c.objectives || []).map((name, i) => name + " " + fmt(c.fitness[i], 5)).join(" · ") || "fitness –";
  // a robust run ([evaluation] robust): the fitness is the robust score; the raw one is the unperturbed world's
  return c.raw ? "robust " + text + " · raw " + c.raw.map((v) => fmt(v, 5)).join(", ") : text;
}

/* The fitness row's label: the plugin that scored it, and the frame it counts from, so that a plugin's
   "distance" is not read as the centroid's travel from frame 0 (the row below it). */
function fitnessLabel() {
  const run = EVO.run || {}, params = run.params || {};
  if (!run.plugin) return "fitness";
  const from = params.settle_frames ? ", from frame " + fmt(params.settle_frames, 6) : "";
  return "fitness (plugin " + run.plugin + from + ")";
}

function omegaText(c) {
  let text = "ω " + fmt(c.omega, 3);
  const lowest = (c.natural || [])[0];
  if (lowest) text += " (ω₁ " + fmt(lowest, 3) + ", ω/ω₁ " + fmt(c.omega / lowest, 3) + ")";
  return text + " · β " + fmt(c.beta, 3);
}

/* The lowest natural frequencies (evo analyze's, about the rest-length equilibrium) and where ω sits. */
function naturalText(c) {
  const freqs = c.natural || [];
  if (!freqs.length) return "– (no non-zero natural frequency found)";
  const SUB = "₁₂₃₄₅₆₇₈₉";
  const list = freqs.map((w, i) => "ω" + (SUB[i] || i + 1) + " " + fmt(w, 4)).join(", ");
  const below = freqs.filter((w) => w <= c.omega).length;
  const where = below === 0 ? "below ω₁" : below === freqs.length ? "above ω" + (SUB[below - 1] || below) : "between ω" + SUB[below - 1] + " and ω" + SUB[below];
  return list + " rad/frame; ω " + fmt(c.omega, 3) + " is " + where;
}

/* A link that downloads the model file, built from the inline JSON as a Blob when clicked. */
function downloadLink(c, label) {
  const link = el("a", { href: "#", class: "download", download: c.file, text: label || "⤓ " + c.file });
  link.addEventListener("click", (event) => {
    const url = URL.createObjectURL(new Blob([c.model], { type: "application/json" }));
    link.href = url;
    setTimeout(() => { URL.revokeObjectURL(url); link.href = "#"; }, 1000);
    event.stopPropagation();
  });
  return link;
}

function showOverlay(id, show) {
  const node = document.getElementById(id);
  node.hidden = !show;
  document.body.classList.toggle("modal-open", show);
}

/* ---- elite cards ------------------------------------------------------------------------- */
const picked = new Set();

function buildCards() {
  const grid = document.getElementById("cards");
  const seen = new IntersectionObserver((entries) => {
    for (const entry of entries) entry.target.player.visible = entry.isIntersecting;
  });
  EVO.elites.forEach((key, rank) => {
    const c = EVO.creatures[key];
    const canvas = el("canvas", { class: "replay", width: "300", height: "170", "data-key": key });
    const pick = el("input", { type: "checkbox", class: "race-pick", "data-key": key });
    pick.checked = rank < 6;
    if (pick.checked) picked.add(key);
    pick.addEventListener("change", () => (pick.checked ? picked.add(key) : picked.delete(key)));
    const open = el("button", { type: "button", class: "open", text: "details" });
    const card = el("article", { class: "card", "data-key": key }, [
      canvas,
      el("div", { class: "card-body" }, [
        el("div", { class: "card-title" }, [el("span", { class: "rank", text: "#" + (rank + 1) }), el("span", { class: "name", text: c.name })]),
        el("div", { class: "fitness", text: fitnessText(c) }),
        el("div", { class: "facts", text: "generation " + (c.generation == null ? "–" : c.generation) + " · " + c.masses + " masses · " + c.links + " links · " + c.muscles + " muscles" }),
        el("div", { class: "facts", text: omegaText(c) }),
        el("div", { class: "card-actions" }, [downloadLink(c, "⤓ model"), el("label", {}, [pick, " race"]), open]),
      ]),
    ]);
    canvas.player = Animator.add(new Player(canvas, key, { fill: 0.7, page: true }));
    canvas.player.t = (rank * 97) % 300;
    seen.observe(canvas);
    canvas.addEventListener("click", () => openDetail(key));
    open.addEventListener("click", () => openDetail(key));
    grid.append(card);
  });
}

/* ---- detail view ------------------------------------------------------------------------- */
let detail = null;

function openDetail(key) {
  const c = EVO.creatures[key];
  detail.setCreature(key);
  detail.playing = true;
  detail.visible = true;
  const scrub = document.getElementById("detail-scrub");
  scrub.max = String(Math.round(detail.rec.lastFrame));
  document.getElementById("detail-title").textContent = c.name;
  const facts = document.getElementById("detail-facts");
  facts.replaceChildren();
  const rows = [
    [fitnessLabel(), fitnessText(c)], ["generation", c.generation == null ? "–" : String(c.generation)],
    ["id", c.id || "–"], ["parents", (c.parents || []).join(", ") || "–"],
    ["masses / links / muscles", c.masses + " / " + c.links + " / " + c.muscles],
    ["wave", omegaText(c)], ["natural frequencies", naturalText(c)],
    ["centroid travel (not the fitness)", fmt(c.distance, 5) + " px from frame 0 to frame " + fmt(c.frames, 6)],
    ["recorded", "every " + fmt(c.step, 3) + " frames" + (c.exploded_frame != null ? ", exploded at frame " + fmt(c.exploded_frame, 6) : "")],
  ];
  for (const [k, v] of rows) facts.append(el("dt", { text: k }), el("dd", { text: v }));
  facts.append(el("dt", { text: "model file" }), el("dd", {}, [downloadLink(c)]));
  updatePlayButton();
  showOverlay("detail", true);
}

function updatePlayButton() {
  document.getElementById("detail-play").textContent = detail.playing ? "❚❚ pause" : "▶ play";
}

function buildDetail() {
  const canvas = document.getElementById("detail-canvas");
  detail = Animator.add(new Player(canvas, null, { fill: 0.6, label: true }));
  detail.visible = false;
  const scrub = document.getElementById("detail-scrub");
  const label = document.getElementById("detail-frame");
  document.getElementById("detail-play").addEventListener("click", () => {
    if (!detail.playing && detail.t >= detail.rec.lastFrame) detail.t = 0;
    detail.playing = !detail.playing; updatePlayButton();
  });
  document.getElementById("detail-speed").addEventListener("change", (e) => (detail.speed = Number(e.target.value)));
  document.getElementById("detail-follow").addEventListener("change", (e) => (detail.options.follow = e.target.checked));
  scrub.addEventListener("input", () => { detail.t = Number(scrub.value); detail.playing = false; updatePlayButton(); });
  const advance = detail.advance.bind(detail);
  detail.advance = (ms) => {
    advance(ms);
    scrub.value = String(Math.round(detail.t));
    label.textContent = "frame " + Math.round(detail.t) + " / " + Math.round(detail.rec.lastFrame);
  };
  document.getElementById("detail-close").addEventListener("click", closeDetail);
}

function closeDetail() { detail.visible = false; showOverlay("detail", false); }

/* ---- race ------------------------------------------------------------------------------ */
const race = { keys: [], t: 0, playing: false, speed: 2, visible: false, lastBoard: 0 };

function openRace(keys) {
  race.keys = keys.slice(0, RACE_COLOURS.length);
  race.recs = race.keys.map((k) => Recording.get(k));
  race.t = 0; race.playing = true; race.visible = true;
  race.end = Math.max(...race.recs.map((r) => r.lastFrame));
  race.origin = race.recs.reduce((s, r) => s + r.c.start_x, 0) / race.recs.length;
  race.span = race.recs.reduce((s, r) => [Math.max(s[0], r.c.span[0]), Math.max(s[1], r.c.span[1])], [20, 20]);
  race.lastBoard = 0;
  showOverlay("race", true);
}

function drawRace(ms) {
  if (race.playing) {
    race.t = Math.min(race.end, race.t + ms * 0.06 * race.speed);
    if (race.t >= race.end) race.playing = false;
  }
  const view = fitCanvas(document.getElementById("race-canvas"));
  const frames = race.recs.map((r) => ({ r: r, p: r.at(race.t).slice() }));
  const centres = frames.map((f) => f.r.centroid(f.p));
  const xs = centres.map((c) => c.x);
  const lead = Math.max(...xs), last = Math.min(...xs), top = Math.max(...centres.map((c) => c.top));
  const s = Math.min(fitScale(race.span, view.w, view.h, 0.5), 0.9 * view.w / (lead - last + race.span[0] + 60));
  const cam = { x: (lead + last) / 2, y: cameraY(0, top, view.h, s), s: s, w: view.w, h: view.h };
  const finish = EVO.track.finish_x != null ? EVO.track.finish_x : EVO.track.finish != null ? race.origin + EVO.track.finish : null;
  drawWorld(view.ctx, cam, EVO.track, race.origin, finish);
  frames.forEach((f, i) => drawCreature(view.ctx, cam, f.r, f.p, 0, RACE_COLOURS[i]));
  view.ctx.fillStyle = "rgba(33,37,41,0.8)"; view.ctx.font = "13px system-ui, sans-serif"; view.ctx.textAlign = "left";
  view.ctx.fillText("frame " + Math.round(race.t), 10, 18);
  if (race.t - race.lastBoard >= 10 || !race.playing || race.lastBoard === 0) { race.lastBoard = race.t || 1; updateBoard(); }
}

function finishFrame(rec) {
  const goal = rec.c.finish != null ? rec.c.finish : EVO.track.finish;  // a race file's: from its own start
  if (goal == null) return null;
  for (let t = 0; t <= race.t; t += rec.c.step) if (rec.progressAt(t) >= goal) return t;
  return null;
}

/* A race file's page (evo gallery RACE.xml): the ranking instead of charts, the contenders as cards,
   no evolution; the race starts at once. */
function startRaceFile() {
  document.querySelector("#fitness h2").textContent = "Ranking";
  document.querySelector("#elites h2").textContent = "Contenders";
  document.querySelector('nav a[href="#fitness"]').textContent = "Ranking";
  document.querySelector('nav a[href="#elites"]').textContent = "Contenders";
  document.querySelector('nav a[href="#evolution"]').hidden = true;
  document.getElementById("evolution").hidden = true;
  document.getElementById("race-selected").textContent = "Race the contenders";
  openRace(EVO.elites);
}

function updateBoard() {
  const rows = race.recs.map((r, i) => ({ r: r, i: i, d: r.progressAt(race.t), done: finishFrame(r) }));
  rows.sort((a, b) => (a.done != null || b.done != null ? (a.done ?? Infinity) - (b.done ?? Infinity) : b.d - a.d));
  const board = document.getElementById("race-board");
  board.replaceChildren(...rows.map((row, place) => el("li", { class: "board-row", "data-key": row.r.key }, [
    el("span", { class: "place", text: String(place + 1) }),
    el("span", { class: "swatch", style: "background:" + RACE_COLOURS[row.i] }),
    el("span", { class: "who", text: row.r.c.name }),
    el("span", { class: "how", text: row.done != null ? "finished, frame " + Math.round(row.done) : fmt(row.d, 4) + " px" }),
  ])));
}

function buildRace() {
  Animator.add({
    get visible() { return race.visible; },
    set visible(value) { race.visible = value; },
    advance: (ms) => drawRace(ms),
    draw() {},
  });
  document.getElementById("race-selected").addEventListener("click", () => openRace(picked.size ? [...picked] : EVO.elites));
  document.getElementById("race-restart").addEventListener("click", () => { race.t = 0; race.lastBoard = 0; race.playing = true; });
  document.getElementById("race-pause").addEventListener("click", () => (race.playing = !race.playing));
  document.getElementById("race-speed").addEventListener("change", (e) => (race.speed = Number(e.target.value)));
  document.getElementById("race-close").addEventListener("click", () => { race.visible = false; showOverlay("race", false); });
}
