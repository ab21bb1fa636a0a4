// Shared by the replay pages: buttons, slider, arrow keys, a clickable strip of steps and a
// #ply=N address for each step. The page supplies the steps' strip entries and a render(i).
window.plylab = window.plylab || {};
plylab.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  });
  children.flat().forEach((c) => node.append(c instanceof Node ? c : String(c)));
  return node;
};
plylab.details = function (title, text, open) {
  const el = plylab.el;
  return el("details", open ? { open: "" } : {}, el("summary", {}, title), el("pre", { class: "text" }, text));
};
// entries: [{kind, label, title}] one per step; render(i) draws step i; returns go(i).
plylab.stepper = function (entries, render) {
  const $ = (id) => document.getElementById(id);
  const last = entries.length - 1;
  const slider = $("slider");
  slider.max = String(last);
  let at = 0;
  function go(i) {
    at = Math.max(0, Math.min(last, i));
    render(at);
    slider.value = String(at);
    document.querySelectorAll("#strip li").forEach((li) => li.classList.toggle("current", Number(li.dataset.step) === at));
    $("prev").disabled = $("first").disabled = at === 0;
    $("next").disabled = $("last").disabled = at === last;
    history.replaceState(null, "", `#ply=${at}`);
  }
  entries.forEach((e, i) => {
    const li = plylab.el("li", { class: e.kind, title: e.title, "data-step": i }, e.label);
    li.addEventListener("click", () => go(i));
    $("strip").append(li);
  });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(at - 1));
  $("next").addEventListener("click", () => go(at + 1));
  $("last").addEventListener("click", () => go(last));
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || e.target.tagName === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  const m = /ply=(\d+)/.exec(location.hash);
  go(m ? Number(m[1]) : 0);
  return go;
};
