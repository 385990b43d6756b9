// GET /traces/live/stream (streamLiveSpans): Server-Sent Events of the application's newly
// stored spans, in receive order, resuming after Last-Event-ID. Each stream polls storage
// (live-span-feed.ts), so it sees spans committed through any instance; the HTTP edge writes the
// events (src/http/sse.ts: headers, heartbeat, backpressure, the client leaving).
import type { operations } from '../generated/engine.js';
import type { EventSource, OperationHandler, StreamEvent } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { RequestValidationError } from '../errors.js';
import { exactJson } from '../json/exact-json.js';
import { parseEventId, type EventPosition } from '../traces/live-event-id.js';
import { LiveSpanFeed, type FeedEvent } from '../traces/live-span-feed.js';
import { liveSpan } from './wire.js';

export interface StreamOptions {
  pollIntervalMs: number;
  /** How long a span may commit after spans received later and still be sent (see live-span-feed.ts). */
  graceMs: number;
  batchSize: number;
}

// The grace outlasts InnoDB's default lock wait (50 s), the longest an ingest transaction that
// already holds its sequences normally waits before it commits or rolls back. The poll interval
// is a setting (LIVE_POLL_INTERVAL_MS, config.livePollIntervalMs).
export const DEFAULT_STREAM_OPTIONS: Omit<StreamOptions, 'pollIntervalMs'> = { graceMs: 60_000, batchSize: 500 };

/** A span as its SSE event; CR and LF never occur inside JSON strings, so the data stays on one line. */
export function spanEvent(event: FeedEvent): StreamEvent {
  return { id: event.id, event: 'span', data: exactJson(liveSpan(event.span)).replace(/[\r\n]+/g, ' ') };
}

function spanEvents(feed: LiveSpanFeed, pollIntervalMs: number): EventSource {
  return {
    poll: async () => (await feed.next()).map(spanEvent),
    get behind() {
      return feed.behind;
    },
    pollIntervalMs,
    failureMessage: 'live stream stopped: storage read failed',
  };
}

/** Where a stream resumes: after the event whose id the client sends back, when it sends one. */
export function resumePosition(lastEventId: string | undefined): EventPosition | undefined {
  if (lastEventId === undefined) return undefined;
  const position = parseEventId(lastEventId);
  if (!position)
    throw new RequestValidationError([
      {
        loc: ['header', 'last-event-id'],
        msg: 'Not an event id of this stream: send the id of the last event received, as it came',
        type: 'value_error',
      },
    ]);
  return position;
}

export function streamLiveSpans({ config, spans }: ServiceDeps): OperationHandler<operations['streamLiveSpans']> {
  const options: StreamOptions = { ...DEFAULT_STREAM_OPTIONS, pollIntervalMs: config.livePollIntervalMs };
  return async (request) => {
    const applicationId = request.headers['x-vendor-app-id'];
    const reads = spans.live(applicationId);
    const resumeAfter = resumePosition(request.headers['last-event-id']);
    // The starting point is fixed before the response starts: whatever is stored after the
    // client sees the headers is sent.
    const feed = await LiveSpanFeed.open(reads, resumeAfter, { graceMs: options.graceMs, batchSize: options.batchSize });
    return { status: 200, events: spanEvents(feed, options.pollIntervalMs) };
  };
}
