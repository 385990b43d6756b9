// The distributions of POST /engine/metrics (openapi/engine.yaml, TraceMetrics) as a table: one
// row per figure (with its unit), one column per statistic. Each cell keeps the exact number in
// data-value; the text is rounded for reading.
import type { components } from '../../../src/generated/engine';
import { formatCost, formatCount, formatDecimal } from '../metrics-format';

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

const FIGURES: Array<{ key: 'duration' | 'cost' | 'spans_per_trace'; label: string; format(value: number): string }> = [
  { key: 'duration', label: 'Duration (ms)', format: formatDecimal },
  { key: 'cost', label: 'Cost per trace', format: formatCost },
  { key: 'spans_per_trace', label: 'Spans per trace', format: formatDecimal },
];

export function MetricsTable({ metrics }: { metrics: TraceMetrics }) {
  const totalCost = metrics.cost.mean * metrics.trace_count;
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
            {formatCost(totalCost)}
          </dd>
        </div>
      </dl>
      <table class="metrics-table">
        <caption>Distributions over the matching traces (cost in the unit the exporters send)</caption>
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
                    {figure.format(value)}
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
