// Sortable tables: click a column header to sort by it, click again to reverse.
// A cell's data-sort attribute (a number) wins over its text, so "0.83 [0.71, 0.91]" sorts by 0.83.
(function () {
  function key(cell) {
    if (!cell) return "";
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    const num = parseFloat(raw);
    return raw !== "" && !isNaN(num) && isFinite(raw) ? num : raw.toLowerCase();
  }
  function sortBy(table, col, th) {
    const body = table.tBodies[0];
    const down = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
    // a detail row (columns folded away) travels with the row above it
    const rows = Array.from(body.rows).filter((r) => !r.classList.contains("detail"));
    const detail = new Map(rows.map((r) => [r, r.nextElementSibling && r.nextElementSibling.classList.contains("detail") ? r.nextElementSibling : null]));
    rows.sort((a, b) => {
      const x = key(a.cells[col]), y = key(b.cells[col]);
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return down ? -c : c;
    });
    rows.forEach((r) => { body.appendChild(r); if (detail.get(r)) body.appendChild(detail.get(r)); });
  }
  document.querySelectorAll("button.more").forEach((b) => b.addEventListener("click", () => {
    const d = b.closest("tr").nextElementSibling;
    d.hidden = !d.hidden;
    b.setAttribute("aria-expanded", String(!d.hidden));
  }));
  document.querySelectorAll("table.sortable").forEach((table) => {
    table.querySelectorAll("thead th:not(.more)").forEach((th, col) => {
      th.tabIndex = 0;
      th.title = "sort";
      th.addEventListener("click", () => sortBy(table, col, th));
      th.addEventListener("keydown", (e) => { if (e.key === "Enter") sortBy(table, col, th); });
    });
  });
})();
