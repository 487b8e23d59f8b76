/* The studio page: loads the session (evo's constants, world fields, plugins, the model or run it was
   started on), wires the panels, the editor, the player and the stage together, draws the stage every
   animation frame, and exposes window.evoStudio for scripts and tests: state() -> {frame, model,
   positions}. */

import { get } from "./api.js";
import { Design, emptyModel } from "./design.js";
import { Editor, MODES } from "./editor.js";
import { Evolve } from "./evolve.js";
import { Files, RunBrowser } from "./files.js";
import { Inspector } from "./inspector.js";
import { scriptCopy } from "./json.js";
import { Library } from "./library.js";
import { Look } from "./look.js";
import { Player } from "./player.js";
import { Race } from "./race.js";
import { Stage } from "./stage.js";
import { centroid, View } from "./view.js";
import { WorldPanels } from "./world.js";

const $ = (id) => document.getElementById(id);
const HINTS = {
  mass: "Click to make masses; drag from one mass to another to join them with a spring (keys: M L V U P B D)",
  bar: "Drag to draw a fixed terrain bar",
  poly: "Polygon: click its corner masses, then the first again",
};

function say(text) {
  $("message").textContent = text || "";
}

async function start() {
  const session = await get("/api/session");
  const canvas = $("canvas");
  const design = new Design();
  const player = new Player();
  const view = new View(canvas);
  const editor = new Editor(canvas, view, design, player);
  const inspector = new Inspector(design);
  const panels = new WorldPanels(session, design, say);
  const look = new Look(session, design);
  const scoring = () => look.scoring();
  const runs = new RunBrowser(design, say);
  const files = new Files(session, design, say);
  const evolve = new Evolve(session, design, runs, say, scoring);
  const race = new Race(design, runs, scoring, say);
  const library = new Library(design, say);
  const stage = new Stage(design, player, () => scoring().frames);
  const nameInput = $("design-name");
  let shownWalls; // the side walls' width the view was last fitted to

  const refreshPanels = () => {
    inspector.refresh(); panels.refresh(); updateButtons();
    if (document.activeElement !== nameInput) nameInput.value = design.model.name || "";
    files.follow();
  };
  design.onChange((kind) => {
    if (kind === "replace") { say(""); look.clear(); evolve.refine.forget(); files.retarget(); editor.setMode(editor.mode); }
    player.load(design.model);
    look.rescore();
    refreshPanels();
    const walls = (design.model.world || {}).width;
    if (kind === "load" || kind === "replace" || walls !== shownWalls) fitView(view, design.model);
    shownWalls = walls;
    if (editor.posed) { editor.posed = false; say("the pose shown is now the design: Play starts from it (Undo takes it back)"); }
  });
  editor.onChange(() => { inspector.refresh(); updateButtons(); });
  player.onUpdate(() => showStatus(player));
  player.connect();

  for (const button of document.querySelectorAll("[data-mode]")) button.addEventListener("click", () => editor.setMode(button.dataset.mode));
  $("undo").addEventListener("click", () => design.undo());
  $("redo").addEventListener("click", () => design.redo());
  $("fix").addEventListener("click", () => design.toggleFixed(design.selected.masses));
  $("snap").addEventListener("change", () => { editor.snap = $("snap").checked; });
  $("grid").addEventListener("change", () => { editor.grid = Math.max(1, Number($("grid").value) || 10); });
  $("play").addEventListener("click", () => player.play());
  $("pause").addEventListener("click", () => player.pause());
  $("step").addEventListener("click", () => { player.pause(); player.step(1); });
  $("reset").addEventListener("click", () => player.reset());
  $("speed").addEventListener("change", () => player.setSpeed(Number($("speed").value)));
  $("new").addEventListener("click", () => { design.replace(emptyModel(), { file: null }); say("a new design (Undo brings the one before back)"); });
  nameInput.addEventListener("change", () => { const name = nameInput.value.trim(); if (name) design.setName(name); else nameInput.value = design.model.name; });
  player.fps = Number($("speed").value);

  function updateButtons() {
    for (const button of document.querySelectorAll("[data-mode]")) button.setAttribute("aria-pressed", String(button.dataset.mode === editor.mode));
    $("undo").disabled = !design.undoStack.length;
    $("redo").disabled = !design.redoStack.length;
    $("mode-label").textContent = `mode: ${editor.mode}${editor.corners.length ? ` (${editor.corners.length} corners)` : ""}`;
  }

  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
    if (typing) return;
    const key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); if (event.shiftKey) design.redo(); else design.undo(); return; }
    if ((event.ctrlKey || event.metaKey) && key === "y") { event.preventDefault(); design.redo(); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const mode = Object.keys(MODES).find((name) => MODES[name].toLowerCase() === key);
    if (mode) { editor.setMode(mode); return; }
    if (key === " ") { event.preventDefault(); if (player.playing) player.pause(); else player.play(); }
    else if (key === "s") { player.pause(); player.step(1); }
    else if (key === "r") player.reset();
    else if (key === "f") design.toggleFixed(design.selected.masses);
    else if (key === "g") { $("snap").checked = !$("snap").checked; editor.snap = $("snap").checked; }
    else if (key === "delete" || key === "backspace") {
      if (design.selected.poly >= 0) design.deletePoly(design.selected.poly);
      else if (design.selected.masses.size) design.deleteMasses([...design.selected.masses]);
      else for (const k of [...design.selected.links].sort((a, b) => b - a)) design.deleteLink(k);
    } else if (key === "escape") { editor.corners = []; design.clearSelection(); refreshPanels(); }
  });

  /* The positions shown now: the streamed frame while the simulation is live, else the design. */
  const shownPositions = () => player.positions || design.model.masses.map((m) => [m.x, m.y]);

  function draw() {
    const modeShape = look.modePositions(performance.now());
    const points = modeShape || shownPositions();
    const world = design.model.world || {};
    if (player.positions && player.playing && !editor.gesture) view.follow(points, view.floorAt, world);
    const history = player.history, first = history[0];
    const ghostFrame = player.ghost.length ? player.ghost[Math.min(player.record, player.ghost.length - 1)] : null;
    view.draw(design.model, points, {
      hint: HINTS[editor.mode], frame: player.frame, grid: editor.snap ? editor.grid : 0, band: editor.band, rubber: editor.rubber,
      selectedMasses: design.selected.masses, selectedLinks: design.selected.links, selectedPoly: design.selected.poly,
      grabbed: editor.grabbed, corners: editor.corners,
      start: points.length ? centroid(first || design.model.masses.map((m) => [m.x, m.y]))[0] : null,
      trail: player.record > 0 ? history.slice(0, player.record + 1).filter(Boolean).map(centroid) : null,
      ghost: ghostFrame && !modeShape ? { points: ghostFrame, links: player.ghostLinks } : null,
      exploded: player.exploded && player.explodedFrame !== null && player.frame >= player.explodedFrame,
    });
    stage.update();
    requestAnimationFrame(draw);
  }

  window.evoStudio = {
    state: () => ({ frame: player.frame, model: scriptCopy(design.model), positions: JSON.parse(JSON.stringify(shownPositions())), grabbed: editor.grabbed }),
    /* Client px of world point (x, y): where a pointer must go to touch it. */
    toClient: (x, y) => view.client(x, y),
    session: session,
    design: design,
    player: player,
    files: files,
    evolve: evolve,
    race: race,
    library: library,
  };

  $("where").textContent = session.run ? `run ${session.run}` : session.path ? session.path : session.can_save ? "" : "not started on a path: Download to keep designs";
  if (session.model) design.load(session.model, { file: session.path }); else { design.load(emptyModel()); }
  if (session.run) await runs.openBest();
  if (session.can_save) { $("designs-panel").open = !session.run; if (!session.run) library.refresh(); }
  refreshPanels();
  requestAnimationFrame(draw);
  document.body.dataset.ready = "1";
}

function showStatus(player) {
  $("frame").textContent = `frame ${player.frame}${player.playing ? " ▶" : ""}`;
  const parts = [];
  if (player.warning) parts.push(`⚠ ${player.warning}`);
  if (player.exploded) parts.push(`exploded at frame ${player.explodedFrame}`);
  if (player.error) parts.push(player.error);
  $("stability").textContent = parts.join(" · ");
  $("stability").className = parts.length ? "warning" : "";
  $("play").setAttribute("aria-pressed", String(player.playing));
}

/* Scale and place the view so the whole design, the floor and the side walls are in sight. */
function fitView(view, model) {
  const points = model.masses.map((m) => [m.x, m.y]);
  const canvas = view.canvas, world = model.world || {};
  if (typeof world.width === "number") points.push([0, 0], [world.width, 0]);
  if (!points.length) { view.s = 1; view.ox = 60; view.oy = view.floorAt = canvas.height - 60; return; }
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const left = Math.min(...xs), right = Math.max(...xs), top = Math.max(...ys, 0), low = Math.min(...ys, 0);
  view.s = Math.max(0.1, Math.min(2, (canvas.width - 100) / Math.max(1, right - left), (canvas.height - 160) / Math.max(1, top - low)));
  view.ox = canvas.width / 2 - (left + right) / 2 * view.s;
  view.oy = canvas.height - 60 + low * view.s;
  view.floorAt = view.oy;
}

start().catch((error) => {
  say(`the studio could not start: ${error.message}`);
  document.body.dataset.ready = "error";
});
