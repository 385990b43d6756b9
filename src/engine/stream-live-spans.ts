// GET /traces/live/stream (streamLiveSpans): Server-Sent Events of the application's newly
// stored spans, in receive order, with a heartbeat comment and Last-Event-ID resume. Each stream
// polls storage (live-span-feed.ts), so it sees spans committed through any instance.
import { PassThrough } from 'node:stream';
import type { Logger } from 'pino';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { exactJson } from '../json/exact-json.js';
import { countSeqsBetween, latestSeq, seqsBetween, spansAfter, spansBySeq } from '../storage/spans/live-reads.js';
import { LiveSpanFeed, type FeedEvent, type FeedReads } from '../traces/live-span-feed.js';
import { liveSpan } from './wire.js';

export interface StreamOptions {
  pollIntervalMs: number;
  heartbeatMs: number;
  /** How long a span may commit after spans received later and still be sent (see live-span-feed.ts). */
  graceMs: number;
  batchSize: number;
}

// The grace outlasts InnoDB's default lock wait (50 s), the longest an ingest transaction that
// already holds its sequences normally waits before it commits or rolls back. The poll interval
// is a setting (LIVE_POLL_INTERVAL_MS, config.livePollIntervalMs).
export const DEFAULT_STREAM_OPTIONS: Omit<StreamOptions, 'pollIntervalMs'> = { heartbeatMs: 15_000, graceMs: 60_000, batchSize: 500 };

/** One SSE event; CR and LF never occur inside JSON strings, so the data stays on one line. */
export function formatSpanEvent(event: FeedEvent): string {
  const data = exactJson(liveSpan(event.span)).replace(/[\r\n]+/g, ' ');
  return `id: ${event.id}\nevent: span\ndata: ${data}\n\n`;
}

export function streamLiveSpans({ config, knex, logger }: ServiceDeps): OperationHandler {
  const options: StreamOptions = { ...DEFAULT_STREAM_OPTIONS, pollIntervalMs: config.livePollIntervalMs };
  return async (request, ctx) => {
    const headers = request.request.headers;
    const applicationId = String(headers['x-vendor-app-id']);
    const lastEventId = typeof headers['last-event-id'] === 'string' ? headers['last-event-id'] : undefined;
    const reads: FeedReads = {
      latestSeq: () => latestSeq(knex, applicationId),
      seqsBetween: (after, upTo, limit) => seqsBetween(knex, applicationId, after, upTo, limit),
      countBetween: (after, upTo) => countSeqsBetween(knex, applicationId, after, upTo),
      spansBySeq: (seqs) => spansBySeq(knex, applicationId, seqs),
      spansAfter: (after, limit) => spansAfter(knex, applicationId, after, limit),
    };
    // The starting point is fixed before the response starts: whatever is stored after the
    // client sees the headers is sent.
    const feed = await LiveSpanFeed.open(reads, lastEventId, { graceMs: options.graceMs, batchSize: options.batchSize });
    const log = (ctx.state.log as Logger | undefined) ?? logger;

    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.req.socket.setKeepAlive(true);
    ctx.status = 200;
    ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    const stream = new PassThrough();
    ctx.body = stream;

    let open = true;
    let wake: (() => void) | undefined;
    const stop = () => {
      open = false;
      wake?.();
    };
    ctx.req.once('close', stop);
    stream.once('close', stop);
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const send = async (text: string) => {
      if (!stream.write(text)) await new Promise<void>((resolve) => {
        stream.once('drain', resolve);
        stream.once('close', resolve);
      });
    };

    void (async () => {
      let nextHeartbeat = Date.now() + options.heartbeatMs;
      // A first comment sends the headers now, so the client knows the stream is open.
      await send(': heartbeat\n\n');
      while (open) {
        let events: FeedEvent[];
        try {
          events = await feed.next();
        } catch (error) {
          // The client reconnects with Last-Event-ID and loses nothing.
          if (open) log.warn({ err: error }, 'live stream stopped: storage read failed');
          break;
        }
        for (const event of events) {
          if (!open) break;
          await send(formatSpanEvent(event));
        }
        if (Date.now() >= nextHeartbeat) {
          await send(': heartbeat\n\n');
          nextHeartbeat = Date.now() + options.heartbeatMs;
        }
        if (open && !feed.behind) await pause(Math.min(options.pollIntervalMs, Math.max(0, nextHeartbeat - Date.now())));
      }
      stream.end();
    })();
  };
}
