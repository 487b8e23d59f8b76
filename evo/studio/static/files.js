/* Files: open (upload, read by evo's safe readers on the server), download (evo writes the text), save
   on disk when the studio was started on a path (atomic; an existing file only after the overwrite
   question) to the design's own file (where it came from, else its name), and the run browser: a run
   folder's elites or archive cells, best first, any of them opened as an undoable replacement. */

import { ApiError, get, post } from "./api.js";
import { el, shown } from "./controls.js";
import { fileStem } from "./design.js";

/* A chosen file's text: decoded with the encoding its XML declaration names (classic files are
   ISO-8859-1), else as UTF-8 (a BOM decides for UTF-16). */
export async function fileText(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const head = new TextDecoder("latin1").decode(bytes.slice(0, 200));
  const declared = /^<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
  let encoding = "utf-8";
  if (bytes[0] === 0xff || bytes[0] === 0xfe) encoding = "utf-16";
  else if (declared) encoding = declared[1];
  try {
    return new TextDecoder(encoding).decode(bytes);
  } catch (error) {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

export class Files {
  constructor(session, design, say) {
    this.session = session;
    this.design = design;
    this.say = say;
    this.format = document.getElementById("format");
    this.path = document.getElementById("save-path");
    this.input = document.getElementById("open-file");
    this.target = null; // what the save path was last set to (a path the person typed is kept)
    if (session.can_save === false) {
      const save = document.getElementById("save");
      save.disabled = true;
      save.title = "the studio was not started on a path: Download instead";
    }
    document.getElementById("open").addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => this.openChosen());
    document.getElementById("download").addEventListener("click", () => this.download());
    document.getElementById("save").addEventListener("click", () => this.save(false));
    document.getElementById("overwrite-yes").addEventListener("click", () => { this.askOverwrite(null); this.save(true); });
    document.getElementById("overwrite-no").addEventListener("click", () => this.askOverwrite(null));
    this.format.addEventListener("change", () => {
      this.path.value = this.path.value.replace(/\.(json|xml)$/i, "") + "." + this.format.value;
      this.target = this.path.value;
    });
  }

  /* The file Save writes for the design: the file it came from, else its name in the chosen format. */
  follow() {
    const file = this.design.origin.file;
    if (file) this.format.value = /\.xml$/i.test(file) ? "xml" : "json";
    const target = file ? file.split(/[\\/]/).pop() : `${fileStem(this.design.model.name)}.${this.format.value}`;
    if (this.path.value === this.target || !this.path.value) this.path.value = target;
    this.target = target;
  }

  /* A replacement: the save path is the new design's own, whatever was typed before. */
  retarget() { this.target = null; this.path.value = ""; this.follow(); }

  async openChosen() {
    const chosen = this.input.files[0];
    if (!chosen) return;
    try {
      await this.openText(chosen.name, await fileText(chosen));
    } catch (error) {
      this.say(error.message);
    }
    this.input.value = "";
  }

  /* Open a file's text (as an upload would): the design is replaced; warnings are shown. */
  async openText(filename, text) {
    const answer = await post("/api/open", { filename: filename, text: text });
    this.design.replace(answer.model, { file: filename });
    this.say((answer.warnings || []).join(" · ") || `opened ${filename} (Undo brings the design before back)`);
  }

  async download() {
    try {
      const answer = await post("/api/export", { model: this.design.model, format: this.format.value });
      const name = this.path.value ? this.path.value.split(/[\\/]/).pop() : answer.filename;
      const type = this.format.value === "xml" ? "application/xml" : "application/json";
      const url = URL.createObjectURL(new Blob([answer.text], { type: type }));
      const link = el("a", { href: url, download: name || answer.filename });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      this.say(error.message);
    }
  }

  async save(overwrite) {
    const body = { model: this.design.model, format: this.format.value, overwrite: overwrite };
    if (this.path.value) body.path = this.path.value;
    try {
      const answer = await post("/api/save", body);
      this.say(`saved ${answer.path}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && error.body.exists) this.askOverwrite(error.message);
      else this.say(error.message);
    }
  }

  askOverwrite(message) {
    const box = document.getElementById("overwrite");
    box.hidden = !message;
    document.getElementById("overwrite-text").textContent = message ? `${message} Overwrite it?` : "";
    if (message) document.getElementById("overwrite-no").focus();
  }
}

/* The run browser: the opened run's elites (GA hall of fame) or archive cells, each opens in the editor. */
export class RunBrowser {
  constructor(design, say) {
    this.design = design;
    this.say = say;
    this.box = document.getElementById("run");
    this.run = null; // the listing shown
    this.listeners = [];
  }

  onChange(listener) { this.listeners.push(listener); }

  /* The run being evolved, before its first generation is saved. */
  starting(folder, seed) {
    document.getElementById("run-panel").open = true;
    this.box.replaceChildren(el("p", { text: `run ${folder.split(/[\\/]/).slice(-2).join("/")} (seed ${seed}): starting…` }));
  }

  async refresh() {
    let run;
    try {
      run = await get("/api/run");
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) this.say(error.message);
      return null;
    }
    this.show(run);
    return run;
  }

  /* The rows best first: by the first objective, highest first (rows without a fitness last). */
  static ranked(rows) {
    const key = (row) => { const f = Array.isArray(row.fitness) ? row.fitness[0] : row.fitness; return typeof f === "number" ? f : -Infinity; };
    return [...rows].sort((a, b) => key(b) - key(a) || a.index - b.index);
  }

  /* Open the best row (the run the studio was started on: the canvas shows its best at once). */
  async openBest() {
    const run = await this.refresh();
    if (!run) return;
    const rows = RunBrowser.ranked(run.cells && run.cells.length ? run.cells : run.elites || []);
    if (rows.length) await this.open(rows[0], true);
  }

  show(run) {
    this.run = run;
    document.getElementById("run-panel").open = true;
    const archive = Boolean(run.cells && run.cells.length);
    const rows = RunBrowser.ranked(archive ? run.cells : run.elites || []);
    const heads = ["#", "name", "fitness", "gen", ...(archive ? ["measures"] : []), ""];
    const table = el("table", { class: "elites", "aria-label": archive ? "archive cells" : "elites" },
      el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { text: h })))));
    const body = el("tbody");
    for (const elite of rows) {
      const fitness = Array.isArray(elite.fitness) ? elite.fitness.map(shown).join(", ") : shown(elite.fitness);
      const measures = Object.entries(elite.measures || {}).map(([k, v]) => `${k} ${shown(v)}`).join(", ");
      body.append(el("tr", {}, el("td", { text: String(elite.index) }), el("td", { text: elite.name || "" }),
        el("td", { text: fitness }), el("td", { text: shown(elite.generation) }),
        archive ? el("td", { text: measures }) : null,
        el("td", {}, el("button", { type: "button", text: "Open", "aria-label": `Open elite ${elite.index}`, onclick: () => this.open(elite) }))));
    }
    table.append(body);
    const what = archive ? "cells" : "elites";
    const folder = (run.folder || "").split(/[\\/]/).slice(-2).join("/");
    this.box.replaceChildren(el("p", { title: run.folder || "", text: `${run.kind || "run"} ${folder}: ${rows.length} ${what} (best first), generation ${shown(run.generation)}` }), table);
    for (const listener of this.listeners) listener(run);
  }

  /* Open an elite as the design (`first`: the studio's first design, no history to undo). */
  async open(elite, first) {
    try {
      const answer = await get(`/api/run/elite/${elite.index}`);
      if (first) this.design.load(answer.model); else this.design.replace(answer.model, { file: null });
      this.say(`opened elite ${elite.index}${elite.name ? ` (${elite.name})` : ""}${first ? "" : " (Undo brings the design before back)"}`);
    } catch (error) {
      this.say(error.message);
    }
  }
}
