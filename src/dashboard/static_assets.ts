/**
 * Every script and style the dashboard uses, served by Sovra itself from pinned npm packages
 * (text imports: bundled with the module graph, no CDN, works offline) and its own files (`dashboard.js` is an ES module importing `money_format.js`).
 */
import type { Hono } from "hono";
import htmxJs from "htmx.org/dist/htmx.min.js" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import dashboardJs from "./assets/dashboard.js" with { type: "text" };
import moneyFormatJs from "./assets/money_format.js" with { type: "text" };
import dashboardCss from "./assets/dashboard.css" with { type: "text" };

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const ASSETS: Record<string, [string, string]> = {
  "htmx.min.js": [htmxJs, JS],
  "uPlot.iife.min.js": [uplotJs, JS],
  "uPlot.min.css": [uplotCss, CSS],
  "dashboard.js": [dashboardJs, JS],
  "money_format.js": [moneyFormatJs, JS],
  "dashboard.css": [dashboardCss, CSS],
};

export function registerStaticAssets(app: Hono<never>): void {
  app.get("/static/:name", (c) => {
    const asset = ASSETS[c.req.param("name")];
    if (!asset) return c.body("Not found.", 404);
    return c.body(asset[0], 200, {
      "content-type": asset[1],
      "cache-control": "public, max-age=3600",
    });
  });
  // Browsers ask for it; an empty answer keeps their consoles clean.
  app.get("/favicon.ico", (c) => c.body(null, 204));
}
