// The figures of the metrics view, loaded by a dynamic import() from ui/src/views/metrics.tsx so
// the first view stays small: the distributions of POST /engine/metrics and charts over time from
// POST /engine/analytics (cost per group; traces and their p95 duration per bucket).
import { useMemo } from 'preact/hooks';
import { call, engine } from '../api';
import {
  COST_GROUP_LIMIT,
  OTHER_LABEL,
  TRAFFIC_COUNT,
  TRAFFIC_P95,
  bucketLabel,
  chartData,
  costRequest,
  trafficRequest,
} from '../analytics-series';
import { formatCost, formatCount, formatDecimal } from '../metrics-format';
import { presetOf } from '../metrics-query';
import { useAsync } from '../use-async';
import { readFilter, windowParams, type TimeWindow } from '../view-query';
import { Chart } from './chart';
import { ChartGroupPicker } from './chart-group-picker';
import { MetricsTable } from './metrics-table';

function Failure({ what, error }: { what: string; error: Error }) {
  return (
    <p role="alert" class="error">
      {what} could not be loaded: {error.message}
    </p>
  );
}

function Loading({ what }: { what: string }) {
  return (
    <p aria-busy="true" class="muted">
      Loading {what}…
    </p>
  );
}

export interface MetricsPanelsProps {
  appId: string;
  window: TimeWindow;
  /** The `filter` query parameter as it is (ui/src/view-query.ts). */
  filterText: string | undefined;
  groupField: string;
  /** Bumped by the view's Refresh button: loads everything again. */
  refresh: number;
}

export function MetricsPanels({ appId, window, filterText, groupField, refresh }: MetricsPanelsProps) {
  const { filter } = readFilter(filterText ? { filter: filterText } : {});
  const params = { header: { 'X-Vendor-App-Id': appId }, query: windowParams(window) };
  const inputs = [appId, window.start.getTime(), window.end.getTime(), filterText, refresh];
  const metrics = useAsync(() => call(engine.POST('/engine/metrics', { params, body: { filter: filter ?? null } })), inputs);
  // Each answer keeps the window it was asked for: the view shows it until the next one arrives.
  const cost = useAsync(
    async () => ({
      answer: await call(engine.POST('/engine/analytics', { params, body: costRequest(groupField, filter) })),
      window,
      groupField,
    }),
    [...inputs, groupField],
  );
  const traffic = useAsync(
    async () => ({ answer: await call(engine.POST('/engine/analytics', { params, body: trafficRequest(filter) })), window }),
    inputs,
  );
  // Series are computed once per answer, so the charts are drawn again only when the data changes.
  const costSeries = useMemo(() => cost.data && chartData(cost.data.answer, 0, cost.data.window, 0), [cost.data]);
  const countSeries = useMemo(() => traffic.data && chartData(traffic.data.answer, TRAFFIC_COUNT, traffic.data.window, 0), [traffic.data]);
  const p95Series = useMemo(() => traffic.data && chartData(traffic.data.answer, TRAFFIC_P95, traffic.data.window, null), [traffic.data]);

  return (
    <>
      <section aria-labelledby="distributions-title">
        <h2 id="distributions-title">Distributions</h2>
        {metrics.error ? (
          <Failure what="The metrics" error={metrics.error} />
        ) : metrics.data ? (
          <MetricsTable metrics={metrics.data} />
        ) : (
          <Loading what="the metrics" />
        )}
      </section>

      <section aria-labelledby="cost-title">
        <h2 id="cost-title">Cost over time</h2>
        <p class="muted">
          The cost of the spans matching the filter, summed per time bucket, per {presetOf(groupField)?.label ?? groupField}; the{' '}
          {COST_GROUP_LIMIT} costliest groups are drawn, the others add up to “{OTHER_LABEL}”.
        </p>
        <ChartGroupPicker />
        {cost.error ? (
          <Failure what="The cost chart" error={cost.error} />
        ) : cost.data && costSeries ? (
          <Chart
            id="cost-chart"
            title={`Cost per ${presetOf(cost.data.groupField)?.label ?? cost.data.groupField}, per ${bucketLabel(costSeries.bucketSeconds)}`}
            data={costSeries}
            unit="USD"
            format={formatCost}
            otherLabel={OTHER_LABEL}
          />
        ) : (
          <Loading what="the cost chart" />
        )}
      </section>

      <section aria-labelledby="traffic-title">
        <h2 id="traffic-title">Traces and duration over time</h2>
        {traffic.error ? (
          <Failure what="The traffic charts" error={traffic.error} />
        ) : countSeries && p95Series ? (
          <div class="chart-pair">
            <Chart
              id="count-chart"
              title={`Traces per ${bucketLabel(countSeries.bucketSeconds)}`}
              data={countSeries}
              unit="traces"
              format={formatCount}
              integer
            />
            <Chart
              id="p95-chart"
              title={`p95 trace duration per ${bucketLabel(p95Series.bucketSeconds)}`}
              data={p95Series}
              unit="ms"
              format={formatDecimal}
              summary="highest"
            />
          </div>
        ) : (
          <Loading what="the traffic charts" />
        )}
      </section>
    </>
  );
}
