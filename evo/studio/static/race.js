/* The Race panel: the design against elites of the open run (ticked) and model files (added), raced by
   evo.race on the server, each in its own world from frame 0 for the page's frames; the table shows the
   race distance (from frame 0) and the page's plugin's fitness (from the frame it counts from) side by
   side, so a disagreement between the two says why. */

import { get, post } from "./api.js";
import { el, shown } from "./controls.js";
import { fileText } from "./files.js";

const MAX_ELITES = 8; // elites of the run offered as contenders

export class Race {
  constructor(design, runs, scoring, say) {
    this.design = design;
    this.scoring = scoring; // () => {plugin, frames}
    this.say = say;
    this.choices = document.getElementById("race-choices");
    this.state = document.getElementById("race-state");
    this.result = document.getElementById("race-result");
    this.files = []; // [{label, model}] added from files
    this.elites = []; // [{row, box}]
    this.input = document.getElementById("race-files");
    document.getElementById("race-add").addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => this.addFiles());
    document.getElementById("race").addEventListener("click", () => this.run());
    runs.onChange((run) => this.offer(run));
    this.build();
  }

  /* The run's best elites, offered as contenders (the best ticked). */
  offer(run) {
    const archive = Boolean(run.cells && run.cells.length);
    const rows = (archive ? run.cells : run.elites || []).slice();
    rows.sort((a, b) => (b.fitness?.[0] ?? -Infinity) - (a.fitness?.[0] ?? -Infinity));
    const ticked = new Set(this.elites.filter((e) => e.box.checked).map((e) => e.row.index));
    this.elites = rows.slice(0, MAX_ELITES).map((row, k) => {
      const box = el("input", { type: "checkbox", "aria-label": `race elite ${row.index}` });
      box.checked = ticked.size ? ticked.has(row.index) : k === 0;
      return { row: row, box: box };
    });
    this.build();
  }

  build() {
    const rows = [el("label", { class: "row" }, el("input", { type: "checkbox", checked: true, disabled: true, "aria-label": "race this design" }), " this design")];
    for (const { row, box } of this.elites) {
      const fitness = Array.isArray(row.fitness) ? row.fitness.map(shown).join(", ") : shown(row.fitness);
      rows.push(el("label", { class: "row" }, box, ` elite ${row.index} ${row.name || ""} (${fitness})`));
    }
    this.files.forEach((file, k) => {
      rows.push(el("div", { class: "row" }, `file ${file.label}`,
        el("button", { type: "button", text: "remove", "aria-label": `remove ${file.label} from the race`, onclick: () => { this.files.splice(k, 1); this.build(); } })));
    });
    this.choices.replaceChildren(...rows);
  }

  async addFiles() {
    for (const chosen of this.input.files) {
      try {
        const answer = await post("/api/open", { filename: chosen.name, text: await fileText(chosen) });
        this.files.push({ label: chosen.name, model: answer.model });
      } catch (error) {
        this.say(`${chosen.name}: ${error.message}`);
      }
    }
    this.input.value = "";
    this.build();
  }

  async run() {
    const { plugin, frames } = this.scoring();
    this.state.textContent = "racing…";
    this.state.dataset.state = "racing";
    try {
      const contenders = [{ label: "this design", model: this.design.model }];
      for (const { row, box } of this.elites) {
        if (box.checked) contenders.push({ label: `elite ${row.index}`, model: (await get(`/api/run/elite/${row.index}`)).model });
      }
      for (const file of this.files) contenders.push({ label: file.label, model: file.model });
      this.show(await post("/api/race", { contenders: contenders, frames: frames, plugin: plugin }));
    } catch (error) {
      this.state.textContent = error.message;
      this.state.dataset.state = "failed";
    }
  }

  show(answer) {
    const since = answer.fitness_counted_from_frame;
    const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "contender" }),
      el("th", { text: "race distance, px", title: "centroid x at the last frame minus at frame 0" }),
      el("th", { text: `fitness (${answer.plugin})`, title: `the ${answer.plugin} plugin's score, counted from frame ${since}` }));
    const body = el("tbody");
    for (const row of answer.contenders) {
      const distance = row.distance === null ? "—" : `${row.distance >= 0 ? "+" : ""}${row.distance.toFixed(1)}`;
      body.append(el("tr", {}, el("td", { class: "rank", text: String(row.rank) }),
        el("td", { text: `${row.label}${row.name ? ` (${row.name})` : ""}${row.exploded ? " EXPLODED" : ""}` }),
        el("td", { text: distance }), el("td", { text: row.fitness.map(shown).join(", ") })));
    }
    const table = el("table", { class: "race", "aria-label": "race result" }, el("thead", {}, head), body);
    const note = el("p", { class: "hint", text: `${answer.frames} frames each, ranked by race distance. Race distance counts from frame 0; the fitness from frame ${since}${since ? " (settle_frames)" : ""}, so the two can disagree.` });
    this.result.replaceChildren(table, note);
    const winner = answer.contenders[0];
    this.state.textContent = `winner: ${winner.label}`;
    this.state.dataset.state = "done";
  }
}
