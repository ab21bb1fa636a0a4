// Clue replay: step 0 is the deal, step k the state after turn k. For the chosen seat, its
// possibility matrix and the SAT oracle's deductions (from the same observations) side by side.
(function () {
  const game = JSON.parse(document.getElementById("game-data").textContent);
  const { el, details } = plylab;
  const $ = (id) => document.getElementById(id);
  const steps = game.steps;
  const H = game.holders.length;
  const GLYPH = { Y: "✓", N: "·", "?": "" };
  let current = 0;

  function grid(table, marks, other, withTruth) {
    const head = el("tr", {}, el("th", {}, "card"), game.holders.map((h) => el("th", {}, h)));
    if (withTruth) head.append(el("th", { class: "truth" }, "truth"));
    const rows = [el("thead", {}, head)];
    const body = el("tbody");
    game.categories.forEach(([name, cards]) => {
      body.append(el("tr", { class: "cat" }, el("th", { colspan: H + 1 + (withTruth ? 1 : 0) }, name)));
      cards.forEach((c) => {
        const tr = el("tr", {}, el("th", {}, game.cards[c]));
        for (let h = 0; h < H; h++) {
          const m = marks[c * H + h];
          const gain = m !== "?" && other && other[c * H + h] === "?";
          tr.append(el("td", { class: `m${m === "?" ? "Q" : m}${gain ? " gain" : ""}` }, GLYPH[m]));
        }
        if (withTruth) tr.append(el("td", { class: "truth" }, game.holders[game.truth[c]]));
        body.append(tr);
      });
    });
    rows.push(body);
    table.replaceChildren(...rows);
  }

  function known(marks) {
    let n = 0;
    for (let c = 0; c < game.cards.length; c++) if (marks.slice(c * H, c * H + H).includes("Y")) n++;
    return n;
  }

  function seatShown(s) {
    const pick = $("seat").value;
    if (pick !== "follow") return Number(pick);
    return s.seat === null ? 0 : s.seat;
  }

  function trace(s) {
    const box = $("trace");
    box.replaceChildren();
    const t = s.tokens;
    $("usage").textContent = s.prompt ? `tokens ${t.input} in · ${t.output} out` + (t.reasoning ? ` · ${t.reasoning} reasoning` : "") : "";
    if (s.prompt) box.append(details("Prompt", s.prompt, false));
    if (s.reasoning) box.append(details("Reasoning", s.reasoning, true));
    if (s.reply) box.append(details("Reply", s.reply, true));
    if (s.error) box.append(details(`Failure: ${s.failure_kind}`, s.error, false));
    if (!box.childNodes.length) box.append(el("p", { class: "empty" }, s.seat === null ? "Nobody has moved yet." : "A bot's turn: no prompt or reply."));
  }

  function render(i) {
    current = i;
    const s = steps[i];
    $("position").textContent = i === 0 ? "The deal" : `Turn ${s.turn} of ${steps.length - 1} · round ${s.round}`;
    $("turn-title").textContent = i === 0 ? "Before the first turn" : `Turn ${s.turn}: ${game.seats[s.seat]}`;
    $("story").className = `verdict ${s.kind}`;
    $("story").textContent = s.story;
    const claims = $("claims");
    claims.replaceChildren();
    if (s.belief && s.belief.some((c) => c !== "?")) claims.append(el("p", {}, `Stated envelope belief: ${s.belief.join(", ")}`));
    if (s.claims && s.claims.length) {
      claims.append(el("ul", { class: "claims" }, s.claims.map(([card, holder, verdict]) =>
        el("li", { class: verdict }, `${card} → ${holder} `, el("span", { class: "sub" }, `(${verdict})`)))));
    }
    const seat = seatShown(s);
    const k = s.knowledge[seat];
    $("matrix-title").textContent = `${game.seats[seat]}: possibility matrix`;
    $("oracle-title").textContent = `Oracle: all that ${game.holders[seat]}'s observations entail`;
    grid($("matrix"), k.matrix, k.oracle, false);
    grid($("oracle"), k.oracle, k.matrix, true);
    $("seat-summary").textContent = `matrix: ${known(k.matrix)} of ${game.cards.length} holders known, ` +
      `ready to accuse: ${k.ready ? "yes" : "no"} · oracle: ${known(k.oracle)} known, solution entailed: ${k.solved ? "yes" : "no"}`;
    trace(s);
  }

  const entries = steps.map((s, i) => ({
    kind: i === 0 ? "final" : s.kind, title: s.story, label: i === 0 ? "deal" : `${s.turn}`,
  }));
  plylab.stepper(entries, render);
  $("seat").addEventListener("change", () => render(current));
})();
