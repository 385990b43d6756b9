// The distributions of POST /engine/metrics (openapi/engine.yaml, TraceMetrics) as a table: one
// row per figure (with its unit), one column per statistic. Each cell keeps the exact number in
// data-value; the text is rounded for reading.
import type { components } from '../../../src/generated/engine';
import { formatCount, formatDecimal } from '../metrics-format';
import { costDecimals, DEFAULT_COST_CURRENCY, formatCost, formatSingleCost } from '../trace-format';

type TraceMetrics = components['schemas']['TraceMetrics'];
type Distribution = components['schemas']['Distribution'];

const STATISTICS: Array<{ key: keyof Distribution; label: string }> = [
  { key: 'mean', label: 'Mean' },
  { key: 'p50', label: 'p50 (median)' },
  { key: 'p90', label: 'p90' },
  { key: 'p95', label: 'p95' },
  { key: 'p99', label: 'p99' },
  { key: 'min', label: 'Min' },
  { key: 'max', label: 'Max' },
  { key: 'stddev', label: 'Std. dev.' },
];

const FIGURES: Array<{ key: 'duration' | 'cost' | 'spans_per_trace'; label: string }> = [
  { key: 'duration', label: 'Duration (ms)' },
  { key: 'cost', label: `Cost per trace (${DEFAULT_COST_CURRENCY})` },
  { key: 'spans_per_trace', label: 'Spans per trace' },
];

export function MetricsTable({ metrics }: { metrics: TraceMetrics }) {
  const totalCost = metrics.cost.mean * metrics.trace_count;
  // The cost row shares one precision, as a column of costs does elsewhere; the unit is in its header.
  const decimals = costDecimals(STATISTICS.map((statistic) => metrics.cost[statistic.key]));
  const format = (figure: (typeof FIGURES)[number]['key'], value: number) =>
    figure === 'cost' ? formatCost(value, decimals, '').trimEnd() : formatDecimal(value);
  return (
    <>
      <dl class="metrics-summary">
        <div>
          <dt>Traces</dt>
          <dd data-testid="trace-count" data-value={metrics.trace_count}>
            {formatCount(metrics.trace_count)}
          </dd>
        </div>
        <div>
          <dt>Total cost</dt>
          <dd data-testid="total-cost" data-value={totalCost}>
            {formatSingleCost(totalCost)}
          </dd>
        </div>
      </dl>
      <table class="metrics-table">
        <caption>Distributions over the matching traces</caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            {STATISTICS.map((statistic) => (
              <th scope="col" class="number" key={statistic.key}>
                {statistic.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {FIGURES.map((figure) => (
            <tr key={figure.key} data-figure={figure.key}>
              <th scope="row">{figure.label}</th>
              {STATISTICS.map((statistic) => {
                const value = metrics[figure.key][statistic.key];
                return (
                  <td class="number" key={statistic.key} data-statistic={statistic.key} data-value={value}>
                    {format(figure.key, value)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
