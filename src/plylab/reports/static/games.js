// A run's game list: filter by game, outcome, seat, failure kind, non-optimal moves, formulation,
// players, and search the model's texts; the choices stand in the address (#game=…&player=…), so a
// filtered list can be shared and a matchup page can link to exactly its games. Rows and texts come from small scripts written beside
// the list pages (run-ID-games-K.js, run-ID-text-K.js), loaded only once a filter or a search asks.
(function () {
  const form = document.getElementById("game-filter");
  const table = document.querySelector('table[data-table="games"]');
  if (!form || !table) return;
  const run = form.dataset.run, shards = Number(form.dataset.shards), chess = form.dataset.chess === "1";
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
  // a player spec may wrap after its commas, as on the server-written rows, never inside a word
  function spec(text) {
    const parts = String(text).split(",");
    return el("td", { class: "key" }, ...parts.flatMap((p, k) => (k ? [",", document.createElement("wbr"), p] : [p])));
  }
  function row(g) {
    const link = g.replay ? el("a", { href: `../games/${g.id}.html` }, `game ${g.id}`) : `game ${g.id}`;
    const outcome = g.outcome + (g.failure_kind ? ` (${g.failure_kind})` : "");
    return el("tr", { "data-outcome": g.outcome },
      cell(link, { "data-sort": g.id }), cell(g.idx, { class: "num" }), cell(g.game), cell(g.formulation),
      spec(g.player), cell(g.seat_name || g.seat, { "data-sort": g.seat }), spec(g.opponent),
      cell(outcome, { class: `outcome ${g.outcome}` }), cell(g.moves, { class: "num" }),
      ...[lost(g), num(g.mean_loss, 3)],
      ...(chess ? [num(g.acpl, 1), num(g.accuracy, 1), num(g.blunders, 0)] : []),
      cell(g.tokens, { class: "num" }));
  }
  // the player's non-optimal moves of its graded ones (a store from before grades: of its scored)
  function lost(g) {
    const of = g.graded || g.scored;
    return cell(of ? `${g.nonoptimal}/${of}` : "–", { class: "num", "data-sort": of ? g.nonoptimal / of : -1 });
  }
  function num(x, digits) {
    return x === null || x === undefined ? cell("–", { class: "num" }) : cell(x.toFixed(digits), { class: "num", "data-sort": x });
  }
  function wanted() {
    const f = Object.fromEntries(new FormData(form).entries());
    f.nonoptimal = form.elements.nonoptimal.checked;
    f.q = (f.q || "").trim().toLowerCase();
    return f;
  }
  async function apply() {
    const f = wanted();
    share(f);
    const active = f.game || f.outcome || f.seat || f.failure_kind || f.nonoptimal || f.formulation || f.player || f.opponent || f.q;
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
      if (f.game && g.game !== f.game) return;
      if (f.outcome && g.outcome !== f.outcome) return;
      if (f.seat && String(g.seat) !== f.seat) return;
      if (f.failure_kind && g.failure_kind !== f.failure_kind) return;
      if (f.nonoptimal && !(g.nonoptimal > 0)) return;  // a loss above the ground truth's tolerance
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
  function share(f) {  // the address holds every choice made, and nothing else
    const params = new URLSearchParams();
    Array.from(form.elements).forEach((e) => {
      if (!e.name) return;
      if (e.type === "checkbox") { if (e.checked) params.set(e.name, "1"); }
      else if ((f[e.name] || "") !== "") params.set(e.name, e.value.trim());
    });
    const hash = params.toString();
    history.replaceState(null, "", hash ? `#${hash}` : location.pathname + location.search);
  }
  // a matchup page (or a shared address) links here with its choices in the address
  const preset = new URLSearchParams(location.hash.slice(1));
  let any = false;
  preset.forEach((v, k) => {
    const e = form.elements[k];
    if (!e) return;
    if (e.type === "checkbox") e.checked = v !== "" && v !== "0"; else e.value = v;
    any = true;
  });
  if (any) apply();
})();
