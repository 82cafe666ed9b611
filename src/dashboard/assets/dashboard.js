// Sovra dashboard behaviour, served from /static/ as an ES module (the CSP allows no inline
// script): copy buttons, the phone-width navigation menu, usage charts (uPlot, with money axes
// from the same formatter as the pages), bringing an in-place result into view, forgetting
// htmx's history on sign-out. htmx does navigation, forms and confirmations.
import { formatEur, moneyTicks } from "./money_format.js";

// Lets the stylesheet collapse the navigation behind its menu button only when this script
// runs (without it, the navigation stays open).
document.documentElement.classList.add("js");

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

function toggleMenu(button) {
  const open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  document.getElementById(button.getAttribute("aria-controls"))?.classList.toggle("open", open);
}

document.addEventListener("click", (event) => {
  const copyButton = event.target.closest("[data-copy]");
  if (copyButton) copy(copyButton);
  const menu = event.target.closest("[data-menu]");
  if (menu) toggleMenu(menu);
});

const PALETTE = ["#2563eb", "#16a34a", "#db2777", "#ea580c", "#7c3aed", "#0891b2", "#ca8a04"];

// Tick spacings in whole units (micro-EUR or counts): 1, 2, 5, 10, 20, 25, 50, … so a tick is
// never a fraction of a micro-euro or of a request.
const WHOLE_INCREMENTS = [];
for (let magnitude = 1; magnitude <= 1e15; magnitude *= 10) {
  for (const m of magnitude === 1 ? [1, 2, 5] : [1, 2, 2.5, 5]) {
    WHOLE_INCREMENTS.push(m * magnitude);
  }
}

const countText = (v) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });

function drawChart(el) {
  if (el.dataset.drawn || typeof uPlot === "undefined") return;
  el.dataset.drawn = "true";
  const data = JSON.parse(el.dataset.chart);
  const xs = data.days.map((d) => Date.parse(d + "T00:00:00Z") / 1000);
  const valueText = data.money ? (v) => formatEur(v) : countText;
  const series = [{}].concat(data.series.map((s, i) => ({
    label: s.label,
    stroke: PALETTE[i % PALETTE.length],
    fill: data.series.length === 1 ? PALETTE[0] + "22" : undefined,
    width: 2,
    value: (_u, v) => (v == null ? "–" : valueText(v)),
  })));
  const width = () => Math.max(200, el.clientWidth || 600);
  const chart = new uPlot(
    {
      width: width(),
      height: data.height ?? 220,
      series,
      scales: { x: { time: true } },
      axes: [{}, {
        incrs: WHOLE_INCREMENTS,
        values: (_u, ticks, _axis, _space, increment) =>
          data.money ? moneyTicks(ticks, increment) : ticks.map(countText),
        // Wide enough for the longest label ("€ 1,250.00"), 7 px a character.
        size: (_u, labels) =>
          18 + 7 * Math.max(3, ...(labels ?? []).map((label) => String(label).length)),
      }],
      legend: { show: data.series.length > 1 || data.legend === true },
    },
    [xs].concat(data.series.map((s) => s.values)),
    el,
  );
  new ResizeObserver(() => {
    if (Math.abs(chart.width - width()) > 1) {
      chart.setSize({ width: width(), height: chart.height });
    }
  }).observe(el);
}

function drawAll(root) {
  for (const el of (root || document).querySelectorAll("[data-chart]")) drawChart(el);
}

// A result swapped in place (the policy dry run) is scrolled into view, no further than needed.
document.addEventListener("htmx:afterSettle", (event) => {
  if (event.target.matches?.("[data-reveal]")) event.target.scrollIntoView({ block: "nearest" });
});

document.addEventListener("DOMContentLoaded", () => drawAll(document));
document.addEventListener("htmx:load", (event) => drawAll(event.target));
