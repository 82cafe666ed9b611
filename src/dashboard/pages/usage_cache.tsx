/**
 * The usage page's prompt-cache panel: over the range, the share of prompt tokens read from
 * provider caches, the tokens written to them, and what caching saved net of the dearer writes
 * (every figure from the settle's daily aggregates, exact to the micro-euro).
 */
import type { CacheSummary } from "../areas/usage.ts";
import { formatEur } from "../money.ts";

/** The cached share as a percentage with one decimal ("0.0" without prompt tokens). */
export function cachedShare(cache: CacheSummary): string {
  if (cache.prompt_tokens === 0) return "0.0";
  return (cache.cached_tokens / cache.prompt_tokens * 100).toFixed(1);
}

export function PromptCachePanel(props: { cache: CacheSummary; days: string[]; range: number }) {
  const { cache } = props;
  const chart = {
    days: props.days,
    series: [{ label: "Cached prompt tokens", values: cache.cached_per_day }],
    scale: 1,
  };
  return (
    <div class="panel" id="prompt-cache">
      <h2>Prompt cache, last {props.range} days</h2>
      <div class="cards">
        <div class="card">
          <div class="label">Cached share of prompt tokens</div>
          <div class="value" id="cache-share">{cachedShare(cache)} %</div>
        </div>
        <div class="card">
          <div class="label">Prompt tokens read from cache</div>
          <div class="value" id="cache-read">{cache.cached_tokens}</div>
        </div>
        <div class="card">
          <div class="label">Prompt tokens written to cache</div>
          <div class="value" id="cache-write">{cache.cache_write_tokens}</div>
        </div>
        <div class="card">
          <div class="label">Saved by caching</div>
          <div class="value" id="cache-saved">€ {formatEur(cache.saved_micro_eur)}</div>
        </div>
      </div>
      <div class="chart" data-chart={JSON.stringify(chart)}></div>
      <p class="muted">
        Cached tokens are billed at the model's cached price, cache writes at its write price; the
        saving is against every prompt token at the prompt price.
      </p>
    </div>
  );
}
