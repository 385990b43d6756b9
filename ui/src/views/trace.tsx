// One trace (docs/dashboard.md, "One trace: the waterfall"): every span of it read from
// GET /traces/{trace_id} page by page, then its summary, the waterfall and the picked span's
// fields (ui/src/components/waterfall-trace.tsx, loaded with the spans so the first view of the
// dashboard does not carry it).
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { call, engine } from '../api';
import { ApplicationPicker, withQuery } from '../components/application-picker';
import type { LoadedTrace, SpanRecord, TraceOverview } from '../components/waterfall-trace';
import { useAsync } from '../use-async';

/** Spans a page (the engine's default); a trace of 10,000 spans is ten pages. */
const SPANS_PER_PAGE = 1000;
/** The most spans the view reads of one trace, to keep the tab's memory in bounds. */
export const MAX_SPANS = 100_000;

async function loadTrace(app: string, traceId: string, progress: (loaded: number, total: number) => void): Promise<LoadedTrace> {
  const spans: SpanRecord[] = [];
  let cursor: string | undefined;
  let summary: TraceOverview;
  do {
    const page = await call(
      engine.GET('/traces/{trace_id}', {
        params: { path: { trace_id: traceId }, header: { 'X-Vendor-App-Id': app }, query: { limit: SPANS_PER_PAGE, cursor } },
      }),
    );
    summary = page.summary;
    for (const span of page.data) spans.push(span);
    cursor = page.next_cursor ?? undefined;
    progress(spans.length, summary.spans_count);
  } while (cursor && spans.length < MAX_SPANS);
  return { summary, spans, cut: cursor !== undefined };
}

export function TraceView() {
  const { query } = useLocation();
  const { params } = useRoute();
  const traceId = params.traceId ?? '';
  const app = query.app || undefined;
  return (
    <section class="trace-view" aria-labelledby="trace-title">
      <p>
        <a href={withQuery('/ui/traces', {}, { app })}>← Traces</a>
      </p>
      <h1 id="trace-title">
        Trace <code>{traceId}</code>
      </h1>
      {app ? (
        <TraceDetail key={`${app} ${traceId}`} app={app} traceId={traceId} />
      ) : (
        <>
          <p>Choose the application the trace belongs to.</p>
          <ApplicationPicker />
        </>
      )}
    </section>
  );
}

function TraceDetail({ app, traceId }: { app: string; traceId: string }) {
  const [progress, setProgress] = useState<{ loaded: number; total: number }>();
  const trace = useAsync(
    () =>
      Promise.all([import('../components/waterfall-trace'), loadTrace(app, traceId, (loaded, total) => setProgress({ loaded, total }))]),
    [],
  );
  if (trace.error) {
    return (
      <p role="alert" class="error">
        The trace could not be loaded: {trace.error.message}
      </p>
    );
  }
  if (!trace.data) {
    return <p aria-busy="true">{progress ? `Loading spans… ${progress.loaded} of ${progress.total}` : 'Loading the trace…'}</p>;
  }
  const [{ TraceBody }, loaded] = trace.data;
  return <TraceBody trace={loaded} />;
}
