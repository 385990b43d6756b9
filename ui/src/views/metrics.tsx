// The metrics view: for the chosen application, range and filter (all in the URL), the
// distributions of POST /engine/metrics and charts over time from POST /engine/analytics: cost per
// group (service, model, SKU or any field) and traces with their p95 duration per bucket. The
// figures and charts (ui/src/components/metrics-panels.tsx) load with a dynamic import(), uPlot
// with another one when a chart is drawn; the style sheets are imported here, statically, because
// esbuild does not inject the CSS of lazily loaded modules.
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApplicationPicker, useSelectedApplication } from '../components/application-picker';
import { FilterBuilder } from '../components/filter-builder';
import { FilterSummary } from '../components/filter-summary';
import { withQuery } from '../components/application-picker';
import { TimeRangePicker } from '../components/time-range-picker';
import { alignedWindow, readGroupField } from '../metrics-query';
import { formatDateTime } from '../time-format';
import { useTimeZone } from '../use-time-zone';
import { useAsync } from '../use-async';
import { filterQuery, readFilter, readTimeWindow } from '../view-query';

export function Metrics() {
  const { path, query, route } = useLocation();
  const appId = useSelectedApplication();
  const zone = useTimeZone();
  const [refreshes, setRefreshes] = useState(0);
  const panels = useAsync(() => import('../components/metrics-panels'), []);
  // A quick range ends "now": fixed when the range changes or the user refreshes, not at every render.
  const window = useMemo(() => alignedWindow(readTimeWindow(query)), [query.range, query.from, query.to, refreshes]);
  return (
    <section aria-labelledby="metrics-title" class="metrics-view">
      <h1 id="metrics-title">Metrics</h1>
      <div class="toolbar">
        <ApplicationPicker />
        <TimeRangePicker />
        <button type="button" onClick={() => setRefreshes((value) => value + 1)}>
          Refresh
        </button>
      </div>
      <FilterSummary />
      <details class="metrics-filter">
        <summary>Edit the filter here</summary>
        <FilterBuilder value={readFilter(query).filter} onChange={(next) => route(withQuery(path, query, filterQuery(next)))} />
      </details>
      <p class="muted" data-testid="metrics-window">
        From {formatDateTime(window.start.getTime(), zone)} to {formatDateTime(window.end.getTime(), zone)}.
      </p>
      {!appId ? (
        <p>Choose an application to see its metrics.</p>
      ) : panels.error ? (
        <p role="alert" class="error">
          The metrics could not be loaded: {panels.error.message}
        </p>
      ) : panels.data ? (
        <panels.data.MetricsPanels
          key={appId}
          appId={appId}
          window={window}
          filterText={query.filter}
          groupField={readGroupField(query)}
          refresh={refreshes}
        />
      ) : (
        <p aria-busy="true" class="muted">
          Loading…
        </p>
      )}
    </section>
  );
}
