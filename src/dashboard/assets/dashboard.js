// Sovra dashboard behaviour, served from /static/ (the CSP allows no inline script):
// copy buttons, usage charts (uPlot), forgetting htmx's history on sign-out. htmx does
// navigation, forms and confirmations.
(() => {
  "use strict";

  // htmx is configured to keep no history snapshots; a tab that ran an older dashboard may still
  // hold some, so signing out (and any page without a session) drops them.
  function forgetHistory() {
    try {
      sessionStorage.removeItem("htmx-history-cache");
      sessionStorage.removeItem("htmx-current-path-for-history");
    } catch { /* storage unavailable: nothing was kept */ }
  }

  document.addEventListener("submit", (event) => {
    if (event.target.matches('form[action="/logout"]')) forgetHistory();
  });
  if (document.documentElement.dataset.forgetHistory === "true") forgetHistory();

  function copy(button) {
    const target = document.querySelector(button.dataset.copy);
    if (!target) return;
    navigator.clipboard.writeText(target.textContent.trim()).then(() => {
      const label = button.textContent;
      button.textContent = "Copied";
      button.dataset.copied = "true";
      setTimeout(() => (button.textContent = label), 1500);
    });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-copy]");
    if (button) copy(button);
  });

  const PALETTE = ["#2563eb", "#16a34a", "#db2777", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04"];

  function drawChart(el) {
    if (el.dataset.drawn || typeof uPlot === "undefined") return;
    el.dataset.drawn = "true";
    const data = JSON.parse(el.dataset.chart);
    const xs = data.days.map((d) => Date.parse(d + "T00:00:00Z") / 1000);
    const scale = data.scale ?? 1;
    const series = [{}].concat(data.series.map((s, i) => ({
      label: s.label,
      stroke: PALETTE[i % PALETTE.length],
      fill: data.series.length === 1 ? PALETTE[0] + "22" : undefined,
      width: 2,
      value: (
        _u,
        v,
      ) => (v == null ? "–" : (v / scale).toLocaleString(undefined, { maximumFractionDigits: 6 })),
    })));
    const values = data.series.map((s) => s.values.map((v) => v / 1));
    const width = Math.max(300, el.clientWidth || 600);
    new uPlot(
      {
        width,
        height: data.height ?? 220,
        series,
        scales: { x: { time: true } },
        axes: [{}, {
          values: (_u, ticks) => ticks.map((t) => (t / scale).toLocaleString()),
          size: 70,
        }],
        legend: { show: data.series.length > 1 || data.legend === true },
      },
      [xs].concat(values),
      el,
    );
  }

  function drawAll(root) {
    for (const el of (root || document).querySelectorAll("[data-chart]")) drawChart(el);
  }

  document.addEventListener("DOMContentLoaded", () => drawAll(document));
  document.addEventListener("htmx:load", (event) => drawAll(event.target));
})();
