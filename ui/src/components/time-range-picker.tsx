// Picks the time window of a data view: a quick range ending now, or an absolute range (in the
// browser's local time). The choice goes into the URL (ui/src/view-query.ts).
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { QUICK_RANGES, absoluteRangeQuery, quickRangeQuery, readTimeWindow, type QuickRange } from '../view-query';
import { withQuery } from './application-picker';

const QUICK_LABELS: Record<QuickRange, string> = {
  '15m': 'Last 15 minutes',
  '1h': 'Last hour',
  '6h': 'Last 6 hours',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
};

/** `YYYY-MM-DDTHH:mm` in local time, what a datetime-local input holds. */
function localInputValue(date: Date): string {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

export function TimeRangePicker() {
  const { path, query, route } = useLocation();
  const window = readTimeWindow(query);
  const [from, setFrom] = useState(localInputValue(window.start));
  const [to, setTo] = useState(localInputValue(window.end));
  const [problem, setProblem] = useState<string>();
  const go = (changes: Record<string, string | undefined>) => route(withQuery(path, query, changes));
  const applyAbsolute = (event: Event) => {
    event.preventDefault();
    const start = new Date(from);
    const end = new Date(to);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || start >= end) {
      setProblem('The start must be before the end');
      return;
    }
    setProblem(undefined);
    go(absoluteRangeQuery(start, end));
  };
  return (
    <fieldset class="time-range">
      <legend>Time range</legend>
      <label>
        Quick range
        <select
          value={window.quick ?? ''}
          onChange={(event) => go(quickRangeQuery((event.target as HTMLSelectElement).value as QuickRange))}
        >
          {window.quick === undefined && <option value="">Absolute</option>}
          {(Object.keys(QUICK_RANGES) as QuickRange[]).map((range) => (
            <option key={range} value={range}>
              {QUICK_LABELS[range]}
            </option>
          ))}
        </select>
      </label>
      <form class="absolute-range" onSubmit={applyAbsolute}>
        <label>
          From
          <input type="datetime-local" value={from} onInput={(event) => setFrom((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          To
          <input type="datetime-local" value={to} onInput={(event) => setTo((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Apply</button>
        {problem && (
          <span role="alert" class="error">
            {problem}
          </span>
        )}
      </form>
    </fieldset>
  );
}
