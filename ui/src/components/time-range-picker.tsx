// Picks the time window of a data view: a quick range ending now, or an absolute range, typed in
// the zone the page writes times in (UTC or local, the header's switch). The choice goes into the
// URL (ui/src/view-query.ts) as instants, so a link means the same window in any zone.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { QUICK_RANGES, absoluteRangeQuery, quickRangeQuery, readTimeWindow, type QuickRange } from '../view-query';
import { withQuery } from './application-picker';
import { inputValue, inputZoneLabel, instantOfInput } from '../time-format';
import { useTimeZone, useZonedText } from '../use-time-zone';

const QUICK_LABELS: Record<QuickRange, string> = {
  '15m': 'Last 15 minutes',
  '1h': 'Last hour',
  '6h': 'Last 6 hours',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
};

export function TimeRangePicker() {
  const { path, query, route } = useLocation();
  const window = readTimeWindow(query);
  const zone = useTimeZone();
  const [from, setFrom] = useZonedText((shown) => inputValue(window.start.getTime(), shown));
  const [to, setTo] = useZonedText((shown) => inputValue(window.end.getTime(), shown));
  const [problem, setProblem] = useState<string>();
  const go = (changes: Record<string, string | undefined>) => route(withQuery(path, query, changes));
  const applyAbsolute = (event: Event) => {
    event.preventDefault();
    const start = new Date(instantOfInput(from, zone));
    const end = new Date(instantOfInput(to, zone));
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
          From ({inputZoneLabel(zone)})
          <input type="datetime-local" value={from} onInput={(event) => setFrom((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          To ({inputZoneLabel(zone)})
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
