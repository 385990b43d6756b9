// The traces list (docs/dashboard.md, "Traces and the filter builder"): an application, a time
// range, a filter, the child-span switch and the order, all kept in the URL (ui/src/view-query.ts),
// and the page of trace summaries POST /traces answers for them, sorted by the engine (newest first
// unless a column header says otherwise), paged by `next_cursor`, the page number in the URL too.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError, call, engine } from '../api';
import { ApplicationPicker, withQuery } from '../components/application-picker';
import { ExportPanel } from '../components/export-panel';
import { describeFilter } from '../describe-filter';
import { FilterBuilder, type FilterIssue } from '../components/filter-builder';
import { TimeRangePicker } from '../components/time-range-picker';
import { formatCount } from '../metrics-format';
import { formatDateTime } from '../time-format';
import { useTimeZone } from '../use-time-zone';
import { costDecimals, formatCost, formatDuration } from '../trace-format';
import { useAsync } from '../use-async';
import { RANGE_LABELS, spanLevelConditions, widerRange } from '../widen-search';
import {
  filterQuery,
  nextTraceSort,
  quickRangeQuery,
  readFilter,
  readSearchChildren,
  readTimeWindow,
  readTraceSort,
  traceSortQuery,
  windowParams,
  type FilterNode,
  type TimeWindow,
  type TraceSort,
  type TraceSortKey,
} from '../view-query';

const PAGE_SIZE = 20;

export function Traces() {
  const { path, query, route } = useLocation();
  const app = query.app || undefined;
  const { filter, problem } = readFilter(query);
  const searchChildren = readSearchChildren(query);
  const sort = readTraceSort(query);
  const [refreshes, setRefreshes] = useState(0);
  // The engine's objections to the filter, which the builder marks row by row.
  const [filterIssues, setFilterIssues] = useState<FilterIssue[]>([]);
  // Any change of the query starts again at page one.
  const go = (changes: Record<string, string | undefined>) => route(withQuery(path, query, { ...changes, page: undefined }));
  // A new query or order (or Refresh) starts a new walk: page one, the window computed anew; a
  // cursor belongs to one sort.
  const listKey = JSON.stringify([app, query.range, query.from, query.to, query.filter, searchChildren, sort, refreshes]);
  return (
    <section class="traces-view" aria-labelledby="traces-title">
      <h1 id="traces-title">Traces</h1>
      <div class="toolbar">
        <ApplicationPicker />
        <TimeRangePicker />
      </div>
      {!app && <p>Choose an application to see its traces.</p>}
      {app && (
        <>
          <FilterBuilder value={filter} onChange={(next) => go(filterQuery(next))} issues={filterIssues} />
          <div class="toolbar">
            <label>
              <input
                type="checkbox"
                checked={searchChildren}
                onChange={(event) => go({ children: (event.target as HTMLInputElement).checked ? '1' : undefined })}
              />
              Search child spans (a trace matches when any of its spans matches; otherwise its root span must)
            </label>
            <button
              type="button"
              onClick={() => {
                setRefreshes((count) => count + 1);
                go({});
              }}
            >
              Refresh
            </button>
          </div>
          {problem ? (
            <p role="alert" class="error">
              {problem}
            </p>
          ) : (
            <TraceList
              key={listKey}
              app={app}
              filter={filter}
              searchChildren={searchChildren}
              sort={sort}
              onSort={(next) => go(traceSortQuery(next))}
              onWiden={go}
              query={query}
              onPage={(page) => route(withQuery(path, query, { page: page > 1 ? String(page) : undefined }), true)}
              onFilterIssues={setFilterIssues}
            />
          )}
          {!problem && (
            <ExportPanel app={app} filter={filter} searchChildren={searchChildren} window={() => windowParams(readTimeWindow(query))} />
          )}
        </>
      )}
    </section>
  );
}

interface TraceListProps {
  app: string;
  filter: FilterNode | undefined;
  searchChildren: boolean;
  sort: TraceSort;
  onSort: (next: TraceSort) => void;
  /** Changes the view's query (the empty state's ways to widen the search). */
  onWiden: (changes: Record<string, string | undefined>) => void;
  query: Record<string, string>;
  /** Writes the page shown into the URL (replacing the history entry: Back leaves the list). */
  onPage: (page: number) => void;
  /** The 422's issues that name a place in the filter (`loc` after `["body", "filter"]`), none otherwise. */
  onFilterIssues: (issues: FilterIssue[]) => void;
}

/** Where a page is read from: the cursor of the page before, or (opened from a URL) its number. */
type PagePosition = { cursor: string; page?: undefined } | { cursor?: undefined; page: number };

/** The page a URL names: a whole number from 1; anything else is page one. */
export function readPageNumber(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

const SORT_WORDS: Record<TraceSortKey, { name: string; desc: string; asc: string }> = {
  start_time: { name: 'start', desc: 'newest first', asc: 'oldest first' },
  duration_ms: { name: 'duration', desc: 'longest first', asc: 'shortest first' },
  spans_count: { name: 'span count', desc: 'most spans first', asc: 'fewest spans first' },
  total_cost: { name: 'cost', desc: 'most expensive first', asc: 'cheapest first' },
};

/** How the table is sorted, in words (its caption). */
function sortCaption(sort: TraceSort): string {
  const words = SORT_WORDS[sort.sort] ?? SORT_WORDS.start_time;
  return `Trace summaries by ${words.name}, ${sort.order === 'asc' ? words.asc : words.desc}`;
}

interface SortHeaderProps {
  column: TraceSortKey;
  label: string;
  sort: TraceSort;
  onSort: (next: TraceSort) => void;
  numeric?: boolean;
}

/** A column header that sorts the list by its column: a button, with aria-sort on the sorted one. */
function SortHeader({ column, label, sort, onSort, numeric = false }: SortHeaderProps) {
  const active = sort.sort === column;
  const direction = sort.order === 'asc' ? 'ascending' : 'descending';
  return (
    <th scope="col" class={numeric ? 'number' : undefined} aria-sort={active ? direction : undefined}>
      <button type="button" class="sort-header" onClick={() => onSort(nextTraceSort(sort, column))}>
        {label}
        <span aria-hidden="true" class="sort-mark">
          {active ? (sort.order === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}

/** One walk through the list: the window is fixed when it starts, as a cursor needs the same query. */
function TraceList({ app, filter, searchChildren, sort, onSort, onWiden, query, onPage, onFilterIssues }: TraceListProps) {
  const [timeWindow] = useState(() => readTimeWindow(query));
  const window = windowParams(timeWindow);
  // The pages walked so far, each by the cursor that leads to it; a walk opened from a URL's
  // page number starts at that number. Previous pops one, or asks for the number before.
  const [positions, setPositions] = useState<PagePosition[]>(() => [{ page: readPageNumber(query) }]);
  const position = positions[positions.length - 1];
  const zone = useTimeZone();
  const page = useAsync(
    () =>
      call(
        engine.POST('/traces', {
          params: {
            header: { 'X-Vendor-App-Id': app },
            query: {
              ...window,
              limit: PAGE_SIZE,
              search_child_spans: searchChildren,
              sort: sort.sort,
              order: sort.order,
              ...(position.cursor === undefined ? { page: position.page } : { cursor: position.cursor }),
            },
          },
          body: filter === undefined ? {} : { filter },
        }),
      ),
    [position],
  );
  useEffect(() => {
    const issues = page.error instanceof ApiError ? page.error.issues : [];
    onFilterIssues(
      issues
        .filter((issue) => issue.loc[0] === 'body' && issue.loc[1] === 'filter')
        .map((issue) => ({ loc: issue.loc.slice(2), msg: issue.msg })),
    );
  }, [page.error]);
  const shownPage = page.data?.pagination.page;
  useEffect(() => {
    if (shownPage !== undefined && shownPage !== readPageNumber(query)) onPage(shownPage);
  }, [shownPage]);
  if (page.error) {
    return (
      <p role="alert" class="error" data-testid="traces-error">
        The traces could not be listed: {page.error.message}
      </p>
    );
  }
  if (!page.data) return <p aria-busy="true">Loading traces…</p>;
  const { data, pagination, next_cursor } = page.data;
  const first = (pagination.page - 1) * PAGE_SIZE + 1;
  // One precision for the page's cost column, so its figures align and compare.
  const decimals = costDecimals(data.map((trace) => trace.total_cost));
  return (
    <div aria-busy={page.loading}>
      <p class="muted" data-testid="traces-count" aria-live="polite">
        {pagination.total === 0
          ? 'No trace matches in this range.'
          : data.length === 0
            ? `No trace on page ${formatCount(pagination.page)}: ${formatCount(pagination.total)} match in this range.`
            : `Traces ${formatCount(first)}–${formatCount(first + data.length - 1)} of ${formatCount(pagination.total)}`}
      </p>
      {pagination.total === 0 && (
        <NoTraceMatches app={app} filter={filter} searchChildren={searchChildren} window={timeWindow} onWiden={onWiden} />
      )}
      {data.length > 0 && (
        <table class="traces-table">
          <caption class="visually-hidden">{sortCaption(sort)}</caption>
          <thead>
            <tr>
              <th scope="col">Root span</th>
              <th scope="col">Service</th>
              <SortHeader column="start_time" label="Start" sort={sort} onSort={onSort} />
              <SortHeader column="duration_ms" label="Duration" sort={sort} onSort={onSort} numeric />
              <SortHeader column="spans_count" label="Spans" sort={sort} onSort={onSort} numeric />
              <SortHeader column="total_cost" label="Cost" sort={sort} onSort={onSort} numeric />
              <th scope="col" class="number">
                Errors
              </th>
              <th scope="col">Trace id</th>
            </tr>
          </thead>
          <tbody>
            {data.map((trace) => (
              <tr key={trace.trace_id} data-trace-id={trace.trace_id}>
                <td>
                  <a href={withQuery(`/ui/traces/${trace.trace_id}`, {}, { app })}>{trace.span_name}</a>
                </td>
                <td>{trace.service_name ?? <span class="muted">none</span>}</td>
                <td class="nowrap">{formatDateTime(trace.min_start_time_unix_nano / 1e6, zone)}</td>
                <td class="number">{formatDuration(trace.duration_ms)}</td>
                <td class="number">{formatCount(trace.spans_count)}</td>
                <td class="number nowrap" data-value={trace.total_cost ?? ''}>
                  {formatCost(trace.total_cost, decimals)}
                </td>
                <td class={trace.error_count > 0 ? 'number error' : 'number'}>{formatCount(trace.error_count)}</td>
                <td>
                  <code title={trace.trace_id}>{trace.trace_id.slice(0, 12)}…</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages of traces">
        <button
          type="button"
          disabled={pagination.page === 1}
          onClick={() => setPositions((walked) => (walked.length > 1 ? walked.slice(0, -1) : [{ page: Math.max(1, pagination.page - 1) }]))}
        >
          Previous page
        </button>
        <span>Page {formatCount(pagination.page)}</span>
        <button
          type="button"
          disabled={!next_cursor}
          onClick={() => next_cursor && setPositions((walked) => [...walked, { cursor: next_cursor }])}
        >
          Next page
        </button>
      </nav>
    </div>
  );
}

interface NoTraceMatchesProps {
  app: string;
  filter: FilterNode | undefined;
  searchChildren: boolean;
  window: TimeWindow;
  onWiden: (changes: Record<string, string | undefined>) => void;
}

/**
 * How to widen a search that found nothing: child-span search when the filter reads span fields
 * (with how many traces it would find: one more count, asked only here), the filter, the range.
 */
function NoTraceMatches({ app, filter, searchChildren, window, onWiden }: NoTraceMatchesProps) {
  const zone = useTimeZone();
  const spanConditions = searchChildren ? [] : spanLevelConditions(filter);
  const withChildren = useAsync(
    () =>
      spanConditions.length === 0
        ? Promise.resolve(undefined)
        : call(
            engine.POST('/traces', {
              params: {
                header: { 'X-Vendor-App-Id': app },
                query: { ...windowParams(window), limit: 1, search_child_spans: true },
              },
              body: { filter },
            }),
          ).then((answer) => answer.pagination.total),
    [],
  );
  const wider = widerRange(window);
  return (
    <div class="empty-state" data-testid="traces-empty">
      <p>To find more:</p>
      <ul>
        {spanConditions.length > 0 && (
          <li data-testid="widen-children">
            Only each trace's root span is checked against {spanConditions.length === 1 ? 'the condition' : 'the conditions'}{' '}
            {spanConditions.map((condition, index) => (
              <span key={index}>
                {index > 0 && ', '}
                <code>{condition}</code>
              </span>
            ))}
            .{' '}
            {withChildren.data !== undefined &&
              (withChildren.data === 0
                ? 'No child span matches either.'
                : `${withChildren.data} ${withChildren.data === 1 ? 'trace has' : 'traces have'} a matching child span.`)}{' '}
            <button type="button" onClick={() => onWiden({ children: '1' })}>
              Search child spans
            </button>
          </li>
        )}
        {filter !== undefined && (
          <li data-testid="widen-filter">
            The filter <code>{describeFilter(filter)}</code> must hold as a whole: loosen or remove a condition above, or{' '}
            <button type="button" onClick={() => onWiden(filterQuery(undefined))}>
              Clear the filter
            </button>
          </li>
        )}
        <li data-testid="widen-range">
          The time range{window.quick ? ` is ${RANGE_LABELS[window.quick]}` : ''}: {formatDateTime(window.start.getTime(), zone)} to{' '}
          {formatDateTime(window.end.getTime(), zone)}.{' '}
          {wider && (
            <button type="button" onClick={() => onWiden(quickRangeQuery(wider))}>
              Widen to {RANGE_LABELS[wider]}
            </button>
          )}
        </li>
      </ul>
    </div>
  );
}
