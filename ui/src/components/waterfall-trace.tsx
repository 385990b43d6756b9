// One loaded trace: its summary, the waterfall (ui/src/components/waterfall.tsx) over the span
// tree computed once, and the picked span's panel (ui/src/components/span-panel.tsx). Loaded on
// demand by the trace view (ui/src/views/trace.tsx).
import { useMemo, useState } from 'preact/hooks';
import type { components } from '../../../src/generated/engine';
import { formatCount } from '../metrics-format';
import { formatUnixNano } from '../time-format';
import { useTimeZone } from '../use-time-zone';
import { formatDuration, formatSingleCost, spanCostCurrency } from '../trace-format';
import { buildSpanTree } from '../waterfall-layout';
import { SpanPanel } from './span-panel';
import { Waterfall, type SpanRecord } from './waterfall';

export type { SpanRecord };
export type TraceOverview = components['schemas']['TraceOverview'];

export interface LoadedTrace {
  summary: TraceOverview;
  spans: SpanRecord[];
  /** True when the trace holds more spans than the view reads and the rest were not read. */
  cut: boolean;
}

/** A trace's cost in its spans' currency; spans in several currencies are added as plain numbers by the engine, and said so. */
function traceCostText(summary: TraceOverview, spans: SpanRecord[]): string {
  const currencies = [...new Set(spans.filter((span) => span.cost !== null).map(spanCostCurrency))].sort();
  if (currencies.length <= 1) return formatSingleCost(summary.total_cost, currencies[0]);
  return `${formatSingleCost(summary.total_cost, '')}(${currencies.join(' and ')} added together)`;
}

export function TraceBody({ trace }: { trace: LoadedTrace }) {
  const { summary, spans } = trace;
  const zone = useTimeZone();
  // The tree is computed once per trace; collapsing and scrolling reuse it.
  const tree = useMemo(() => buildSpanTree(spans), [spans]);
  const indexById = useMemo(() => new Map(spans.map((span, index) => [span.span_id, index])), [spans]);
  const [selected, setSelected] = useState<number>();
  const span = selected === undefined ? undefined : spans[selected];
  return (
    <>
      <dl class="trace-summary" data-testid="trace-summary">
        <div>
          <dt>Root span</dt>
          <dd>{summary.span_name ?? <span class="muted">no root span stored</span>}</dd>
        </div>
        <div>
          <dt>Service</dt>
          <dd>{summary.service_name ?? <span class="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Start</dt>
          <dd>{formatUnixNano(summary.min_start_time_unix_nano, zone)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(summary.duration_ms)}</dd>
        </div>
        <div>
          <dt>Spans</dt>
          <dd>{formatCount(summary.spans_count)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{traceCostText(summary, spans)}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd class={summary.error_count > 0 ? 'error' : undefined}>{summary.error_count}</dd>
        </div>
      </dl>
      {trace.cut && (
        <p role="status" class="muted">
          This trace holds {formatCount(summary.spans_count)} spans; the first {formatCount(spans.length)} (in start order) are shown.
        </p>
      )}
      <div class={span ? 'trace-layout with-panel' : 'trace-layout'}>
        <Waterfall spans={spans} tree={tree} selected={selected} onSelect={setSelected} />
        {span && (
          <SpanPanel
            span={span}
            traceStart={tree.start}
            parentStored={span.parent_span_id !== null && indexById.has(span.parent_span_id)}
            onSelectParent={() => span.parent_span_id !== null && setSelected(indexById.get(span.parent_span_id))}
            onClose={() => setSelected(undefined)}
          />
        )}
      </div>
    </>
  );
}
