// A run's game list: filter by outcome, seat, failure kind, non-optimal moves, formulation,
// players, and search the model's texts. Rows and texts come from small scripts written beside
// the list pages (run-ID-games-K.js, run-ID-text-K.js), loaded only once a filter or a search asks.
(function () {
  const form = document.getElementById("game-filter");
  const table = document.querySelector('table[data-table="games"]');
  if (!form || !table) return;
  const run = form.dataset.run, shards = Number(form.dataset.shards);
  const fields = form.dataset.fields.split(",");
  const rows = {}, texts = {};
  window.plylab = window.plylab || {};
  plylab.gameRows = (page, items) => { rows[page] = items.map((r) => Object.fromEntries(fields.map((f, k) => [f, r[k]]))); };
  plylab.gameTexts = (page, items) => { texts[page] = items; };
  const loading = {};
  function load(kind, page) {
    const key = `${kind}-${page}`;
    loading[key] = loading[key] || new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = `run-${run}-${kind}-${page}.js`;
      s.onload = resolve;
      s.onerror = () => reject(new Error(`could not load ${s.src}`));
      document.head.append(s);
    });
    return loading[key];
  }
  const pages = () => Array.from({ length: shards }, (_, k) => k + 1);
  const original = Array.from(table.tBodies[0].rows);
  const status = document.getElementById("filter-status");
  const SHOWN = 1000;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs).forEach(([k, v]) => { if (k === "class") node.className = v; else node.setAttribute(k, v); });
    children.forEach((c) => node.append(c instanceof Node ? c : String(c)));
    return node;
  }
  function cell(text, attrs) { return el("td", attrs || {}, text); }
  function row(g) {
    const link = g.replay ? el("a", { href: `../games/${g.id}.html` }, `game ${g.id}`) : `game ${g.id}`;
    const outcome = g.outcome + (g.failure_kind ? ` (${g.failure_kind})` : "");
    return el("tr", { "data-outcome": g.outcome },
      cell(link, { "data-sort": g.id }), cell(g.idx, { class: "num" }), cell(g.game), cell(g.formulation),
      cell(g.player, { class: "key" }), cell(g.seat, { class: "num" }), cell(g.opponent, { class: "key" }),
      cell(outcome, { class: `outcome ${g.outcome}` }), cell(g.moves, { class: "num" }),
      cell(g.scored ? `${g.optimal}/${g.scored}` : "–", { "data-sort": g.scored ? g.optimal / g.scored : -1 }),
      cell(g.tokens, { class: "num" }));
  }
  function wanted() {
    const f = Object.fromEntries(new FormData(form).entries());
    f.nonoptimal = form.elements.nonoptimal.checked;
    f.q = (f.q || "").trim().toLowerCase();
    return f;
  }
  async function apply() {
    const f = wanted();
    const active = f.outcome || f.seat || f.failure_kind || f.nonoptimal || f.formulation || f.player || f.opponent || f.q;
    const body = table.tBodies[0];
    if (!active) {
      body.replaceChildren(...original);
      status.textContent = "";
      return;
    }
    status.textContent = "loading…";
    try {
      await Promise.all(pages().map((p) => load("games", p)));
      if (f.q) await Promise.all(pages().map((p) => load("text", p)));
    } catch (e) { status.textContent = e.message; return; }
    const hits = [];
    pages().forEach((p) => (rows[p] || []).forEach((g) => {
      if (f.outcome && g.outcome !== f.outcome) return;
      if (f.seat && String(g.seat) !== f.seat) return;
      if (f.failure_kind && g.failure_kind !== f.failure_kind) return;
      if (f.nonoptimal && !(g.optimal < g.scored)) return;
      if (f.formulation && g.formulation !== f.formulation) return;
      if (f.player && g.player !== f.player) return;
      if (f.opponent && g.opponent !== f.opponent) return;
      if (f.q && !((texts[p] || {})[g.id] || "").toLowerCase().includes(f.q)) return;
      hits.push(g);
    }));
    body.replaceChildren(...hits.slice(0, SHOWN).map(row));
    const total = pages().reduce((n, p) => n + (rows[p] || []).length, 0);
    status.textContent = `${hits.length} of ${total} games match` + (hits.length > SHOWN ? ` (first ${SHOWN} shown)` : "");
  }
  form.addEventListener("change", apply);
  form.addEventListener("submit", (e) => { e.preventDefault(); apply(); });
  let typing;
  form.elements.q.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(apply, 250); });
  // a matchup page links here with its player, opponent and formulation in the address
  const preset = new URLSearchParams(location.hash.slice(1));
  let any = false;
  preset.forEach((v, k) => { if (form.elements[k]) { form.elements[k].value = v; any = true; } });
  if (any) apply();
})();
