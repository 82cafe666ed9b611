/**
 * Live per-route metrics in memory, as exponentially weighted moving averages: latency, time
 * to first token, tokens per second and error rate. The smart router reads them.
 */
export interface RouteMetricsSnapshot {
  requests: number;
  latencyMs: number | undefined;
  ttftMs: number | undefined;
  tokensPerSecond: number | undefined;
  errorRate: number;
}

const ALPHA = 0.2;

function ewma(previous: number | undefined, value: number): number {
  return previous === undefined ? value : previous + ALPHA * (value - previous);
}

export class RouteMetrics {
  #routes = new Map<string, RouteMetricsSnapshot>();

  static key(providerId: string, upstreamModel: string): string {
    return `${providerId}/${upstreamModel}`;
  }

  #get(key: string): RouteMetricsSnapshot {
    let m = this.#routes.get(key);
    if (!m) {
      m = {
        requests: 0,
        latencyMs: undefined,
        ttftMs: undefined,
        tokensPerSecond: undefined,
        errorRate: 0,
      };
      this.#routes.set(key, m);
    }
    return m;
  }

  recordSuccess(
    key: string,
    sample: { latencyMs: number; ttftMs?: number; completionTokens?: number | undefined },
  ): void {
    const m = this.#get(key);
    m.requests++;
    m.errorRate = ewma(m.errorRate, 0);
    m.latencyMs = ewma(m.latencyMs, sample.latencyMs);
    if (sample.ttftMs !== undefined) m.ttftMs = ewma(m.ttftMs, sample.ttftMs);
    if (sample.completionTokens !== undefined && sample.latencyMs > 0) {
      const generation = sample.latencyMs - (sample.ttftMs ?? 0);
      if (generation > 0) {
        m.tokensPerSecond = ewma(m.tokensPerSecond, (sample.completionTokens * 1000) / generation);
      }
    }
  }

  recordFailure(key: string): void {
    const m = this.#get(key);
    m.requests++;
    m.errorRate = ewma(m.errorRate, 1);
  }

  snapshot(key: string): RouteMetricsSnapshot | undefined {
    const m = this.#routes.get(key);
    return m ? { ...m } : undefined;
  }

  /** The live figures without a copy, for a reader that is done before the next await. */
  peek(key: string): Readonly<RouteMetricsSnapshot> | undefined {
    return this.#routes.get(key);
  }

  all(): Record<string, RouteMetricsSnapshot> {
    return Object.fromEntries([...this.#routes].map(([k, v]) => [k, { ...v }]));
  }
}
