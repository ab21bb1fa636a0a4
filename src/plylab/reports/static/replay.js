// Replay of a two-player game: step i < n is move i as its mover saw it; step n is the final position.
(function () {
  const game = JSON.parse(document.getElementById("game-data").textContent);
  const { el, details } = plylab;
  const $ = (id) => document.getElementById(id);
  const steps = game.steps;
  const truth = game.truth;  // what grades the game, in the words its pages print; null: nothing
  let current = 0;

  function verdict(s) {
    if (s.action === null) return ["fail", `${s.mover} failed: ${s.failure_kind || "no move"}`];
    const move = `${s.mover} played ${s.label}`;
    const e = s.engine;  // graded by an engine (chess): lichess's judgement of the move
    if (e) {
      const line = `after: ${e.after_text} · best ${e.best} (${e.before_text}) · expected-score loss ${e.loss.toFixed(3)}`;
      if (e.judgement) return ["bad", `${move}${e.nag}: ${e.judgement}; ${line}`];
      return ["ok", `${move}: ${e.best_played ? "the engine's move" : "good"}; ${line}`];
    }
    // Where the oracle has exact scores (Connect Four), say how the move fares by score too.
    const byScore = s.informative_score ? `; by exact score: ${s.optimal_score ? "optimal" : "not optimal"}` : "";
    const d = s.decision;  // the graded decision: the same record whatever grades the game
    if (!truth) return ["na", `${move} (ungraded: this game has no ground truth)`];
    if (!d) return ["na", `${move} (not graded)`];
    if (!d.informative) return ["na", `${move}; every legal move is worth the same here (not graded)${byScore}`];
    const p = d.probability === null || d.probability === undefined ? "" : `; ${truth.kind} plays it with probability ${d.probability.toFixed(3)}`;
    const loss = d.lost && !s.legal.some((m) => m.value) ? `: loss ${d.loss.toFixed(3)} ${truth.unit} against ${truth.against}` : "";
    const best = d.lost && d.best.length ? `; best: ${d.best.join(", ")}` : "";
    return [d.lost ? "bad" : "ok", `${move}: ${d.lost ? truth.lost : truth.best}${loss}${best}${p}${byScore}`];
  }

  const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
  const missing = (x) => x === null || x === undefined;

  function movesTable(s) {
    const body = $("moves").tBodies[0];
    body.replaceChildren();
    const hasScore = s && s.legal.some((m) => !missing(m.score));
    $("score-head").hidden = !hasScore;
    const hasP = s && s.legal.some((m) => !missing(m.probability));
    $("prob-head").hidden = !hasP;
    // the value column: exact game values, else each move's value on the graded scale, else the engine's line
    const hasValue = s && (s.engine || s.legal.some((m) => m.value || !missing(m.graded)));
    $("value-head").hidden = !hasValue;
    if (!s) {
      body.append(el("tr", {}, el("td", { colspan: 4, class: "empty" }, "game over")));
      return;
    }
    if (!hasValue && !hasP && !hasScore) {  // nothing says anything of the moves: one line of names
      $("moves").tHead.hidden = true;
      body.append(el("tr", {}, el("td", { class: "legal-list" }, `${s.legal.length} legal: `,
        ...s.legal.map((m) => el("span", { class: m.action === s.action ? "chosen" : "" }, m.label)))));
      return;
    }
    $("moves").tHead.hidden = false;
    const payoff = s.decision && s.decision.unit === "payoff";
    s.legal.forEach((m) => {
      const chosen = m.action === s.action;
      const best = s.decision && s.decision.best.includes(m.label);
      const row = el("tr", { class: chosen ? "chosen" : "" }, el("td", { class: "label" }, m.label));
      if (hasValue) row.append(el("td", { class: m.value ? "" : "num" },
        m.value ? el("span", { class: `tag ${m.value}` }, m.value)
          : s.engine && m.label === s.engine.best ? `engine's best (${s.engine.before_text})`
          : s.engine && chosen ? `played (${s.engine.after_text}; loss ${s.engine.loss.toFixed(3)})`
          : !missing(m.graded) ? (payoff ? signed(m.graded) : m.graded.toFixed(3)) + (best ? " ★" : "") : ""));
      if (hasP) row.append(el("td", { class: "num" }, missing(m.probability) ? "" : m.probability.toFixed(3)));
      if (hasScore) row.append(el("td", { class: "num" }, missing(m.score) ? "" : m.score));
      row.append(el("td", { class: "mark" }, chosen ? "◀ chosen" : ""));
      body.append(row);
    });
  }

  function trace(s) {
    const box = $("trace");
    box.replaceChildren();
    if (!s) { $("usage").textContent = ""; return; }
    const t = s.tokens;
    const parts = [];
    if (s.calls || s.cache_hits || s.prompt) {
      parts.push(`tokens ${t.input} in · ${t.output} out` + (t.reasoning ? ` · ${t.reasoning} reasoning` : ""));
      parts.push(`${s.calls} call${s.calls === 1 ? "" : "s"} · ${s.cache_hits} cached`);
      if (s.cost !== null && s.cost !== undefined) parts.push(`$${s.cost.toFixed(4)}`);
    }
    parts.push(`${(s.elapsed * 1000).toFixed(1)} ms`);
    $("usage").textContent = parts.join(" · ");
    $("usage").title = s.player;
    if (s.seen) {  // view=image: the drawn board the model was shown with the prompt
      const picture = el("div", { class: "board-svg seen" });
      picture.innerHTML = s.seen;
      box.append(el("details", {}, el("summary", {}, "Image shown to the model"), picture));
    }
    if (s.prompt) box.append(details("Prompt", s.prompt, false));
    if (s.reasoning) box.append(details("Reasoning", s.reasoning, true));
    if (s.reply) box.append(details("Reply", s.reply, true));
    (s.attempts || []).filter((a) => a.failure).forEach((a, k) =>
      box.append(details(`Failed attempt ${k + 1}: ${a.failure}`, [a.error, a.reply].filter(Boolean).join("\n\n"), false)));
    if (s.note) box.append(details("Player notes", JSON.stringify(s.note, null, 2), false));
    if (!box.childNodes.length) box.append(el("p", { class: "empty" }, `${s.mover} is ${s.player}, not a language model: no prompt or reply.`));
  }

  function render(i) {
    const s = i < steps.length ? steps[i] : null;
    // plies counted from 0, as the store and the #ply= address count them
    $("position").textContent = s ? `Ply ${s.ply} (${i + 1} of ${steps.length}) · ${s.mover} to move`
      : `Final position · after ${steps.length} ${steps.length === 1 ? "ply" : "plies"}`;
    $("board-title").textContent = s ? `Position seen by ${s.mover}` : "Final position";
    const drawing = s ? s.svg : game.final.svg;
    $("board-svg").innerHTML = drawing || "";
    $("board-svg").hidden = !drawing;
    $("board-key").hidden = !drawing || Boolean(game.engine);  // the key explains exact values
    $("board").textContent = s ? s.board : game.final.board;
    // Under a disguise the text the model read sits open beside the real board; else it folds away.
    $("text-details").open = !drawing || game.disguised;
    $("text-title").textContent = game.hidden
      ? (s ? `What ${s.mover} saw (their information only)` : "The end, as the players saw it")
      : game.disguised
      ? `What the player saw (${game.formulation})`
      : drawing ? "Text board (what a model reads)" : "Board";
    if (game.hidden) {  // the whole state only on request: the reader, not a player, sees it
      const whole = (s ? s.whole : game.final.whole) || "";
      $("whole").textContent = whole;
      $("whole").hidden = !$("reveal").checked;
    }
    const cursor = document.querySelector("#value-svg .cursor");
    if (cursor) {
      const w = Number(cursor.parentNode.dataset.stepWidth), left = Number(cursor.parentNode.dataset.left);
      cursor.setAttribute("x", String(left + i * w));
      cursor.setAttribute("visibility", i < steps.length ? "visible" : "hidden");
    }
    const bar = $("evalbar");
    if (bar) {  // the shown position's evaluation: before the move, or after the last one
      const last = steps.length ? steps[steps.length - 1].engine : null;
      const e = s ? s.engine : last;
      const white = e ? (s ? e.before : e.after) : 0.5;
      bar.querySelector(".black").style.height = `${(100 * (1 - white)).toFixed(1)}%`;
      bar.querySelector(".num").textContent = e ? (s ? e.before_text : e.after_text) : "";
    }
    current = i;
    const [kind, text] = s ? verdict(s) : ["final", game.final.result];
    $("verdict").className = `verdict ${kind}`;
    $("verdict").textContent = text;
    movesTable(s);
    trace(s);
    $("model").hidden = !s;
  }

  const entries = steps.map((s) => {
    const [kind, title] = verdict(s);
    return { kind, title, label: [el("small", {}, game.seat_names[s.seat] + " "), s.label || "×"] };
  });
  entries.push({ kind: "final", title: game.final.result, label: "end" });
  const go = plylab.stepper(entries, render);
  if (game.hidden) $("reveal").addEventListener("change", () => { $("whole").hidden = !$("reveal").checked; });
  document.querySelectorAll("#value-svg [data-step]").forEach((g) =>
    g.addEventListener("click", () => go(Number(g.dataset.step))));
  // n / p: the next / previous mistake (a non-optimal move, a failure, or, where the oracle has exact
  // scores, a move that keeps the result but not the best score), by either seat
  const slip = (i) => i < steps.length && Boolean(steps[i].informative_score) && !steps[i].optimal_score;
  const mistakes = entries.map((e, i) => (e.kind === "bad" || e.kind === "fail" || slip(i) ? i : -1)).filter((i) => i >= 0);
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    const to = e.key === "n" ? mistakes.find((i) => i > current)
      : e.key === "p" ? [...mistakes].reverse().find((i) => i < current) : undefined;
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
})();
