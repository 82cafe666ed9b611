/**
 * RouteLLM's evaluation protocol (arXiv 2406.18665; `routellm/evals/evaluate.py`): rank the
 * prompts by router score, send the top share x to the strong model, sweep x over 0–100 %.
 * PGR(x) = (quality(x) − weak) / (strong − weak); APGR is the area under PGR; CPT(p) is the
 * smallest strong-call share reaching PGR p; calls@95 % the smallest share reaching 95 % of
 * the strong model's quality. Tied scores are routed as a block in expectation (the curve is
 * linear across a tie), so a constant router is exactly random.
 */
import type { Item } from "./data.ts";

export interface CurvePoint {
  share: number;
  quality: number;
}

/** Piecewise-linear quality curve over strong-call share, at each tie-group boundary. */
export function qualityCurve(
  items: readonly Item[],
  scores: readonly number[],
  weights?: readonly number[],
  sorted?: readonly number[],
): CurvePoint[] {
  const order = sorted ?? rankOrder(scores);
  const w = (i: number) => (weights ? weights[i]! : 1);
  let total = 0;
  let quality = 0;
  for (const i of order) {
    total += w(i);
    quality += w(i) * items[i]!.weak;
  }
  const points: CurvePoint[] = [{ share: 0, quality: quality / total }];
  let count = 0;
  for (let k = 0; k < order.length;) {
    const s = scores[order[k]!]!;
    while (k < order.length && scores[order[k]!] === s) {
      const i = order[k]!;
      count += w(i);
      quality += w(i) * (items[i]!.strong - items[i]!.weak);
      k++;
    }
    points.push({ share: count / total, quality: quality / total });
  }
  return points;
}

/** Item indices, highest score first. */
export function rankOrder(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
}

export interface RouterMetrics {
  apgr: number;
  cpt50: number;
  cpt80: number;
  strongCallsAt95: number;
  strongQuality: number;
  weakQuality: number;
}

/** The smallest share at which the curve reaches `target` (linear between points). */
function firstShareReaching(points: readonly CurvePoint[], target: number): number {
  if (points[0]!.quality >= target) return 0;
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1]!;
    const b = points[k]!;
    if (b.quality >= target) {
      const span = b.quality - a.quality;
      return span > 0 ? a.share + (b.share - a.share) * (target - a.quality) / span : b.share;
    }
  }
  return 1;
}

export function metricsOf(points: readonly CurvePoint[]): RouterMetrics {
  const weak = points[0]!.quality;
  const strong = points[points.length - 1]!.quality;
  const gap = strong - weak;
  let area = 0;
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1]!;
    const b = points[k]!;
    area += (b.share - a.share) * ((a.quality + b.quality) / 2 - weak);
  }
  const target = (p: number) => weak + p * gap;
  return {
    apgr: gap !== 0 ? area / gap : 0.5,
    cpt50: firstShareReaching(points, target(0.5)),
    cpt80: firstShareReaching(points, target(0.8)),
    strongCallsAt95: firstShareReaching(points, 0.95 * strong),
    strongQuality: strong,
    weakQuality: weak,
  };
}

/** Deterministic PRNG (mulberry32) so the bootstrap is reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interval {
  value: number;
  lo: number;
  hi: number;
}

/** 95 % percentile bootstrap intervals of every metric (resampling prompts). */
export function bootstrap(
  items: readonly Item[],
  scores: readonly number[],
  resamples = 1000,
  seed = 13,
): Record<keyof RouterMetrics, Interval> {
  const sorted = rankOrder(scores);
  const point = metricsOf(qualityCurve(items, scores, undefined, sorted));
  const random = rng(seed);
  const samples: RouterMetrics[] = [];
  const counts = new Array<number>(items.length);
  for (let r = 0; r < resamples; r++) {
    counts.fill(0);
    for (let k = 0; k < items.length; k++) counts[Math.floor(random() * items.length)]!++;
    samples.push(metricsOf(qualityCurve(items, scores, counts, sorted)));
  }
  const out = {} as Record<keyof RouterMetrics, Interval>;
  for (const key of Object.keys(point) as (keyof RouterMetrics)[]) {
    const xs = samples.map((s) => s[key]).sort((a, b) => a - b);
    out[key] = {
      value: point[key],
      lo: xs[Math.floor(0.025 * (xs.length - 1))]!,
      hi: xs[Math.ceil(0.975 * (xs.length - 1))]!,
    };
  }
  return out;
}
