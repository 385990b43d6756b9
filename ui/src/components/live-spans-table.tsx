// The spans of the live view, newest first: when each started, its service, name (a link to its
// trace), kind, duration and status. Names and values are data from outside, rendered as text.
import type { LiveEvent, LiveSpan } from '../live-stream';
import { formatDurationMs } from '../metrics-format';
import { formatClock } from '../time-format';
import { useTimeZone } from '../use-time-zone';
import { withQuery } from './application-picker';

function shortName(value: string | null, prefix: string): string {
  return value ? value.replace(prefix, '') : '';
}

function durationMs(span: LiveSpan): number {
  return (span.span_end_time_unix_nano - span.span_start_time_unix_nano) / 1e6;
}

export function LiveSpansTable({ events, appId }: { events: LiveEvent[]; appId: string }) {
  const zone = useTimeZone();
  return (
    <table class="live-spans">
      <caption class="visually-hidden">Spans received, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Service</th>
          <th scope="col">Span (opens its trace)</th>
          <th scope="col">Kind</th>
          <th scope="col" class="number">
            Duration
          </th>
          <th scope="col">Status</th>
          <th scope="col">Trace id</th>
        </tr>
      </thead>
      <tbody>
        {events.map(({ span }) => (
          <tr key={`${span.trace_id}:${span.span_id}`} data-span-id={span.span_id}>
            <td>
              <time dateTime={new Date(span.span_start_time_unix_nano / 1e6).toISOString()}>
                {formatClock(span.span_start_time_unix_nano / 1e6, zone)}
              </time>
            </td>
            <td>{span.service_name ?? ''}</td>
            <td>
              <a href={withQuery(`/ui/traces/${encodeURIComponent(span.trace_id)}`, {}, { app: appId })}>{span.span_name || '(no name)'}</a>
            </td>
            <td>{shortName(span.span_kind, 'SPAN_KIND_')}</td>
            <td class="number">{formatDurationMs(durationMs(span))}</td>
            <td class={span.status_code === 'STATUS_CODE_ERROR' ? 'error' : undefined}>
              {shortName(span.status_code, 'STATUS_CODE_')}
              {span.status_message ? `: ${span.status_message}` : ''}
            </td>
            <td>
              <code>{span.trace_id}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
