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
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = key(a.cells[col]), y = key(b.cells[col]);
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return down ? -c : c;
    });
    rows.forEach((r) => body.appendChild(r));
  }
  document.querySelectorAll("table.sortable").forEach((table) => {
    table.querySelectorAll("thead th").forEach((th, col) => {
      th.tabIndex = 0;
      th.title = "sort";
      th.addEventListener("click", () => sortBy(table, col, th));
      th.addEventListener("keydown", (e) => { if (e.key === "Enter") sortBy(table, col, th); });
    });
  });
})();
