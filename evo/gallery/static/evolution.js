"use strict";
/* The best creature of every generation: a player with a generation slider, an autoplay that steps
   through the generations where the best changed, and a table of the generations. */

const evolution = { player: null, index: 0, auto: false };

function generationText(row) {
  const c = row.key ? EVO.creatures[row.key] : null;
  const what = c ? c.name : "no creature kept";
  const how = row.key ? (row.exact ? "" : " (best kept creature born by then; the generation's own best was not kept)") : "";
  return "generation " + row.generation + " · best " + fmt(row.best, 5) + " · " + what + how;
}

function showGeneration(index) {
  const rows = EVO.generations;
  evolution.index = Math.max(0, Math.min(index, rows.length - 1));
  const row = rows[evolution.index];
  document.getElementById("evolution-slider").value = String(evolution.index);
  document.getElementById("evolution-label").textContent = generationText(row);
  const shown = evolution.player.rec ? evolution.player.rec.key : null;
  if (row.key !== shown) evolution.player.setCreature(row.key);
  for (const tr of document.querySelectorAll("#evolution-table tbody tr")) {
    tr.classList.toggle("current", Number(tr.dataset.index) === evolution.index);
  }
}

/* The next generation whose best is another creature (or the last one). */
function nextChange(index) {
  const rows = EVO.generations, key = rows[index].key;
  for (let i = index + 1; i < rows.length; i++) if (rows[i].key !== key) return i;
  return -1;
}

function buildEvolution() {
  const rows = EVO.generations || [];
  const section = document.getElementById("evolution");
  if (!rows.length || !rows.some((r) => r.key)) { section.hidden = true; return; }
  const canvas = document.getElementById("evolution-canvas");
  const player = Animator.add(new Player(canvas, null, { fill: 0.5, label: true, page: true }));
  evolution.player = player;
  const slider = document.getElementById("evolution-slider");
  slider.max = String(rows.length - 1);
  slider.addEventListener("input", () => { evolution.auto = false; showGeneration(Number(slider.value)); });
  const auto = document.getElementById("evolution-auto");
  auto.addEventListener("click", () => {
    evolution.auto = !evolution.auto;
    auto.textContent = evolution.auto ? "❚❚ stop" : "▶ watch evolution";
    if (evolution.auto) { showGeneration(Math.max(0, rows.findIndex((r) => r.key))); player.t = 0; }
  });
  const advance = player.advance.bind(player);
  player.options.loop = true;
  player.advance = (ms) => {
    const before = player.t;
    advance(ms);
    if (evolution.auto && player.t < before) {
      const next = nextChange(evolution.index);
      if (next < 0) { evolution.auto = false; auto.textContent = "▶ watch evolution"; } else showGeneration(next);
    }
  };
  player.speed = 4;
  document.getElementById("evolution-race").addEventListener("click", () => {
    const keys = [...new Set(rows.map((r) => r.key).filter((k) => k))];
    const count = Math.min(keys.length, RACE_COLOURS.length);
    const chosen = [];
    for (let i = 0; i < count; i++) chosen.push(keys[Math.round(i * (keys.length - 1) / Math.max(count - 1, 1))]);
    openRace([...new Set(chosen)]);
  });
  const body = document.querySelector("#evolution-table tbody");
  rows.forEach((row, i) => {
    const changed = i === 0 || row.key !== rows[i - 1].key;
    const c = row.key ? EVO.creatures[row.key] : null;
    const tr = el("tr", { "data-index": String(i), class: changed ? "changed" : "" }, [
      el("td", { text: String(row.generation) }),
      el("td", { text: fmt(row.best, 5) }), el("td", { text: fmt(row.mean, 5) }), el("td", { text: fmt(row.min, 5) }),
      el("td", { text: c ? c.name + (row.exact ? "" : " *") : "–" }),
      el("td", { text: changed && c ? "new best" : "" }),
    ]);
    tr.addEventListener("click", () => { evolution.auto = false; showGeneration(i); });
    body.append(tr);
  });
  showGeneration(rows.length - 1);
}

function main() {
  buildCards();
  buildDetail();
  buildRace();
  buildEvolution();
  buildArchive();
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!document.getElementById("detail").hidden) closeDetail();
    if (!document.getElementById("race").hidden) document.getElementById("race-close").click();
  });
  if (EVO.race) startRaceFile();
  document.body.dataset.ready = "1";
  requestAnimationFrame(Animator.tick);
}

main();
