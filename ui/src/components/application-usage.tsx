// An application's usage (getApplicationUsage) and its daily span quota state: the last 24 hours
// by the hour or the last 30 days by the UTC day, as a table of what ingestion took in (spans
// accepted, already stored and rejected, bytes received and decompressed, requests answered and
// refused by the quota), with the window's totals in the last row.
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import type { Application } from '../applications';
import type { components } from '../../../src/generated/management';
import { useAsync } from '../use-async';
import { withQuery } from './application-picker';
import { formatCount } from '../metrics-format';
import { formatDay, formatIsoText, type TimeZone } from '../time-format';
import { useTimeZone } from '../use-time-zone';

type UsageCounts = components['schemas']['UsageCounts'];
type Granularity = components['schemas']['UsageGranularity'];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const COLUMNS: Array<[keyof UsageCounts, string]> = [
  ['spans_accepted', 'Spans accepted'],
  ['spans_duplicate', 'Already stored'],
  ['spans_rejected', 'Rejected'],
  ['bytes_received', 'Bytes received'],
  ['bytes_decompressed', 'Bytes decompressed'],
  ['requests', 'Requests'],
  ['requests_refused', 'Refused (quota)'],
];

function loadUsage(appId: string, granularity: Granularity) {
  const end = Date.now();
  const start = end - (granularity === 'hour' ? 24 * HOUR_MS : 30 * DAY_MS);
  const query = { start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString(), granularity };
  return call(management.GET('/applications/{app_id}/usage', { params: { path: { app_id: appId }, query } }));
}

function bucketLabel(startTime: string, granularity: Granularity, zone: TimeZone): string {
  // Hours in the page's zone; days are UTC days, as the quota counts them (said in the header).
  return granularity === 'hour' ? formatIsoText(startTime, zone) : formatDay(Date.parse(startTime), 'UTC');
}

export function QuotaState({ application }: { application: Application }) {
  const { daily_span_quota: quota, quota_state: state } = application;
  const zone = useTimeZone();
  const resets = formatIsoText(state.resets_at, zone);
  if (quota === null) return <span>No daily span quota; {formatCount(state.spans_accepted_today)} spans accepted today (UTC)</span>;
  return (
    <span class={state.exceeded ? 'error' : undefined}>
      {formatCount(state.spans_accepted_today)} of {formatCount(quota)} spans accepted today (UTC)
      {state.exceeded ? `: quota used up, ingestion refused until ${resets}` : ''}
    </span>
  );
}

export function ApplicationUsage({ application }: { application: Application }) {
  // In the URL (`usage=day`; absent: by the hour), so a reload or a shared link keeps it.
  const { path, query, route } = useLocation();
  const granularity: Granularity = query.usage === 'day' ? 'day' : 'hour';
  const setGranularity = (next: Granularity) => route(withQuery(path, query, { usage: next === 'day' ? 'day' : undefined }));
  const usage = useAsync(() => loadUsage(application.id, granularity), [application.id, granularity]);
  const zone = useTimeZone();
  return (
    <div class="usage">
      <fieldset class="segmented">
        <legend>Usage by</legend>
        {(['hour', 'day'] as const).map((value) => (
          <label key={value}>
            <input
              type="radio"
              name="usage-granularity"
              value={value}
              checked={granularity === value}
              onChange={() => setGranularity(value)}
            />
            {value === 'hour' ? 'Hour (last 24 hours)' : 'Day (last 30 days)'}
          </label>
        ))}
      </fieldset>
      {usage.error && <p role="alert">The usage could not be read: {usage.error.message}</p>}
      {!usage.data && !usage.error && <p aria-busy="true">Loading the usage…</p>}
      {usage.data && usage.data.buckets.length === 0 && <p class="muted">Nothing received in this window.</p>}
      {usage.data && usage.data.buckets.length > 0 && (
        <table class="management-table usage-table" aria-label={`Usage by ${granularity}`}>
          <thead>
            <tr>
              <th scope="col">{granularity === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
              {COLUMNS.map(([key, label]) => (
                <th key={key} scope="col" class="number">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {usage.data.buckets.map((bucket) => (
              <tr key={bucket.start_time}>
                <th scope="row">{bucketLabel(bucket.start_time, granularity, zone)}</th>
                {COLUMNS.map(([key]) => (
                  <td key={key} class="number">
                    {formatCount(bucket[key])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {COLUMNS.map(([key]) => (
                <td key={key} class="number">
                  {usage.data && formatCount(usage.data.totals[key])}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      )}
    </div>
  );
}
