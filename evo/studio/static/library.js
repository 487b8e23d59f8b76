/* The Designs panel: the model files of the folder the studio was started on, each with a thumbnail (the
   design drawn by the stage's own View), its name and file; Open replaces the design (undoable), and Save
   then writes that file. */

import { get } from "./api.js";
import { el } from "./controls.js";
import { View } from "./view.js";

export class Library {
  constructor(design, say) {
    this.design = design;
    this.say = say;
    this.box = document.getElementById("designs");
    document.getElementById("designs-panel").addEventListener("toggle", (event) => { if (event.target.open) this.refresh(); });
  }

  async refresh() {
    let answer;
    try {
      answer = await get("/api/designs");
    } catch (error) {
      this.box.replaceChildren(el("p", { class: "error", text: error.message }));
      return;
    }
    const cards = answer.designs.map((row) => this.card(row));
    if (!cards.length) cards.push(el("p", { class: "hint", text: answer.folder ? `no model files in ${answer.folder}` : "the studio was started on no folder" }));
    if (answer.more) cards.push(el("p", { class: "hint", text: `and ${answer.more} more` }));
    cards.push(el("button", { type: "button", text: "Refresh", "aria-label": "refresh the designs list", onclick: () => this.refresh() }));
    this.box.replaceChildren(...cards);
  }

  card(row) {
    const canvas = el("canvas", { width: 240, height: 140, "aria-label": `thumbnail of ${row.file}` });
    const body = el("div", { class: "thumb-body" }, el("span", { class: "name", text: row.name }), el("span", { class: "file", text: row.file }));
    if (row.error) body.append(el("span", { class: "error", text: row.error }));
    else body.append(el("button", { type: "button", text: "Open", "aria-label": `Open design ${row.file}`, onclick: () => this.open(row) }));
    const card = el("div", { class: "thumb" }, canvas, body);
    if (row.model) thumbnail(canvas, row.model);
    return card;
  }

  open(row) {
    this.design.replace(row.model, { file: row.file });
    this.say(`opened ${row.file} (Undo brings the design before back)`);
  }
}

/* Draw `model` fitted into `canvas`. */
export function thumbnail(canvas, model) {
  const view = new View(canvas), points = model.masses.map((m) => [m.x, m.y]);
  if (!points.length) return;
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const width = Math.max(...xs) - Math.min(...xs) || 1, height = Math.max(...ys, 0) - Math.min(...ys, 0) || 1;
  view.s = Math.min(2, (canvas.width - 30) / width, (canvas.height - 30) / height);
  view.ox = canvas.width / 2 - (Math.min(...xs) + width / 2) * view.s;
  view.oy = canvas.height - 12 + Math.min(0, Math.min(...ys)) * view.s;
  view.draw(model, points, { frame: 0, selectedMasses: new Set(), selectedLinks: new Set() });
}
