/**
 * A per-day chart: the canvas uPlot draws in the browser (`assets/dashboard.js`, from the
 * `data-chart` attribute) and its text alternatives, written on the server — a one-sentence
 * summary as the chart's accessible name and the numbers themselves in a table behind a
 * "Data table" disclosure, for screen readers and for anyone who wants the exact figures.
 */
import { formatEur } from "../money.ts";
import { ScrollRegion } from "./regions.tsx";

export interface ChartSeries {
  label: string;
  values: number[];
}

export interface ChartProps {
  /** What is plotted, e.g. "Cost per day, last 30 days". */
  title: string;
  days: string[];
  series: ChartSeries[];
  /** Money in micro-EUR (axis and legend as "€ 0.0004"); otherwise counts. */
  money?: boolean;
  /** Show the legend for a single series too. */
  legend?: boolean;
}

/** A count as the pages write it: "12,345", at most one decimal (audio seconds). */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: 1 });
}

/** "Cost per day, last 30 days: € 2.29 in all; the highest day 2026-11-19 with € 0.18." */
export function chartSummary(props: ChartProps): string {
  const format = props.money ? (v: number) => formatEur(v) : formatCount;
  const perDay = props.days.map((_, i) =>
    props.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)
  );
  const total = perDay.reduce((a, b) => a + b, 0);
  const split = props.series.length > 1 ? ` (${props.series.length} series)` : "";
  if (total === 0) return `${props.title}${split}: nothing recorded.`;
  const top = perDay.indexOf(Math.max(...perDay));
  return `${props.title}${split}: ${format(total)} in all; the highest day ${
    props.days[top]
  } with ${format(perDay[top]!)}.`;
}

export function Chart(props: ChartProps) {
  const format = props.money ? (v: number) => formatEur(v) : formatCount;
  const data = {
    days: props.days,
    series: props.series,
    money: props.money === true,
    legend: props.legend === true,
  };
  return (
    <div class="chart-block">
      <div
        class="chart"
        role="img"
        aria-label={chartSummary(props)}
        data-chart={JSON.stringify(data)}
      >
      </div>
      <details class="chart-data">
        <summary>Data table</summary>
        <ScrollRegion label={`${props.title}, data`}>
          <table class="compact">
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {props.series.map((s) => <th scope="col" class="num">{s.label}</th>)}
              </tr>
            </thead>
            <tbody>
              {props.days.map((day, i) => (
                <tr>
                  <th scope="row">{day}</th>
                  {props.series.map((s) => <td class="num">{format(s.values[i] ?? 0)}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </div>
  );
}
