/**
 * Lifecycle of catalog models and routes (`deprecated_on`, `retires_on`, `successor`): what is
 * retired today, and the notices an operator sees at start, on reload and in the admin CLI.
 * Dates are UTC calendar days; a model or route is off from its `retires_on` day on.
 */
import type { Model, Route } from "./schema.ts";

const DAY_MS = 86_400_000;
/** The last day formatted and the UTC milliseconds it spans: requests ask several times each. */
let cachedDay = "";
let cachedDayStart = 0;
let cachedDayEnd = 0;

/**
 * Today's UTC date, `YYYY-MM-DD` (ISO strings of one length compare as dates). The catalog asks
 * for it a few times per request (retired models and routes); formatting a `Date` each time was
 * ~1 % of a request's CPU, so the day last formatted is kept with the instants it covers.
 */
export function todayUtc(now: number = Date.now()): string {
  if (now >= cachedDayStart && now < cachedDayEnd) return cachedDay;
  const day = new Date(now).toISOString().slice(0, 10);
  cachedDayStart = Math.floor(now / DAY_MS) * DAY_MS;
  cachedDayEnd = cachedDayStart + DAY_MS;
  cachedDay = day;
  return day;
}

interface Lifecycle {
  deprecated_on?: string | undefined;
  retires_on?: string | undefined;
}

export function isRetired(entry: Lifecycle, today: string): boolean {
  return entry.retires_on !== undefined && entry.retires_on <= today;
}

export function isDeprecated(entry: Lifecycle, today: string): boolean {
  return entry.deprecated_on !== undefined && entry.deprecated_on <= today;
}

/**
 * The client's 404 text for a retired model (or one whose routes are all retired), naming its
 * successor when the catalog has one.
 */
export function retiredMessage(model: Model, today: string): string | undefined {
  const routesGone = model.routes.every((r) => isRetired(r, today));
  if (!isRetired(model, today) && !routesGone) return undefined;
  const when = model.retires_on ?? lastRouteRetirement(model.routes);
  return `Model '${model.id}' was retired${when ? ` on ${when}` : ""}` +
    (model.successor ? `; use '${model.successor}' instead.` : ".");
}

function lastRouteRetirement(routes: readonly Route[]): string | undefined {
  let last: string | undefined;
  for (const r of routes) if (r.retires_on && (!last || r.retires_on > last)) last = r.retires_on;
  return last;
}

export interface LifecycleNotice {
  /** `models[3]` or `models[3].routes[1]` with the id, for the log line. */
  subject: string;
  /** `retired`: served no longer; `retiring`: a date is set; `deprecated`: past its deprecation. */
  state: "retired" | "deprecated" | "retiring";
  message: string;
}

/** Notices for the active models and routes whose lifecycle needs the operator's attention. */
export function lifecycleNotices(models: readonly Model[], today: string): LifecycleNotice[] {
  const notices: LifecycleNotice[] = [];
  for (const model of models) {
    if (model.state !== "active") continue;
    const after = model.successor ? `; successor '${model.successor}'` : "";
    const notice = noticeOf(model, today, `model '${model.id}'`, after);
    if (notice) notices.push(notice);
    model.routes.forEach((route) => {
      const name = `route ${route.provider}/${route.upstream_model} of '${model.id}'`;
      const then = route.successor ? `; successor '${route.successor}'` : "";
      const n = noticeOf(route, today, name, then);
      if (n) notices.push(n);
    });
  }
  return notices;
}

function noticeOf(
  entry: Lifecycle,
  today: string,
  subject: string,
  after: string,
): LifecycleNotice | undefined {
  if (isRetired(entry, today)) {
    return {
      subject,
      state: "retired",
      message: `${subject} retired on ${entry.retires_on}: it is off${after}`,
    };
  }
  if (isDeprecated(entry, today)) {
    return {
      subject,
      state: "deprecated",
      message: `${subject} deprecated on ${entry.deprecated_on}` +
        (entry.retires_on ? `, retires on ${entry.retires_on}` : "") + after,
    };
  }
  if (entry.retires_on) {
    return {
      subject,
      state: "retiring",
      message: `${subject} retires on ${entry.retires_on}${after}`,
    };
  }
  return undefined;
}
