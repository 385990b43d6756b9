// A client of GET /traces/live/stream (openapi/engine.yaml, streamLiveSpans). The browser's
// EventSource cannot send the bearer token or X-Vendor-App-Id, so this reads the event stream
// with fetch and eventsource-parser. After a drop (network, server restart, 5xx, a stream silent
// for longer than three heartbeats) it reconnects with Last-Event-ID, so the server sends exactly
// the spans received meanwhile; it stops for good when `signal` aborts (the view is left) or the
// service refuses the request (401, 403, 404, 422).
import { createParser } from 'eventsource-parser';
import type { components } from '../../src/generated/engine';
import { problemMessage } from './api';

export type LiveSpan = components['schemas']['LiveSpan'];

export interface LiveEvent {
  /** The event id (opaque): sent back as Last-Event-ID to resume after this event. */
  id: string;
  span: LiveSpan;
}

export type StreamStatus =
  | { state: 'connecting' }
  | { state: 'connected' }
  | { state: 'reconnecting'; reason: string; retryInMs: number }
  | { state: 'refused'; status: number; message: string }
  | { state: 'closed' };

export interface LiveStreamOptions {
  appId: string;
  /** The bearer token, read at each (re)connection: the session may have changed (or minted a new one). */
  token(): string | undefined | Promise<string | undefined>;
  /** The spans of one chunk of the stream, in receive order. */
  onEvents(events: LiveEvent[]): void;
  onStatus(status: StreamStatus): void;
  signal: AbortSignal;
  /** Where the service is (default: this page's origin). */
  origin?: string;
  /** Waits between failed attempts; the last repeats. */
  retryDelaysMs?: number[];
}

/** The server sends a heartbeat every 15 s; three missed means the connection is dead. */
export const SILENCE_LIMIT_MS = 45_000;
const RETRY_DELAYS_MS = [500, 1000, 2000, 5000, 10_000];

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Runs until `signal` aborts or the service refuses; resolves then. */
export async function runLiveStream(options: LiveStreamOptions): Promise<void> {
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  let lastEventId: string | undefined;
  let failures = 0;
  options.onStatus({ state: 'connecting' });
  while (!options.signal.aborted) {
    try {
      await readOnce(
        options,
        lastEventId,
        (id) => (lastEventId = id),
        () => (failures = 0),
      );
      if (options.signal.aborted) break;
      throw new Error('the stream ended');
    } catch (error) {
      if (options.signal.aborted) break;
      if (error instanceof Refused) {
        options.onStatus({ state: 'refused', status: error.status, message: error.message });
        return;
      }
      const retryInMs = delays[Math.min(failures, delays.length - 1)];
      failures += 1;
      options.onStatus({ state: 'reconnecting', reason: error instanceof Error ? error.message : String(error), retryInMs });
      await wait(retryInMs, options.signal);
    }
  }
  options.onStatus({ state: 'closed' });
}

/** One connection: resolves when the stream ends, throws on a failure. */
async function readOnce(
  options: LiveStreamOptions,
  lastEventId: string | undefined,
  seen: (id: string) => void,
  connected: () => void,
): Promise<void> {
  // One controller per connection, aborted by the view's signal or by the silence watchdog.
  const connection = new AbortController();
  const abort = () => connection.abort();
  options.signal.addEventListener('abort', abort, { once: true });
  let silence: ReturnType<typeof setTimeout> | undefined;
  let silent = false;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      silent = true;
      connection.abort();
    }, SILENCE_LIMIT_MS);
  };
  try {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'X-Vendor-App-Id': options.appId };
    const token = await options.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    heard();
    const response = await fetch(`${options.origin ?? location.origin}/traces/live/stream`, {
      headers,
      signal: connection.signal,
      cache: 'no-store',
    });
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => null);
      const message = problemMessage(response.status, body);
      if (response.status >= 500 || response.status === 429) throw new Error(message);
      throw new Refused(response.status, message);
    }
    if (!response.body) throw new Error('the answer has no body');
    connected();
    options.onStatus({ state: 'connected' });
    let batch: LiveEvent[] = [];
    const parser = createParser({
      onEvent(event) {
        if (event.event !== 'span' || !event.id) return;
        batch.push({ id: event.id, span: JSON.parse(event.data) as LiveSpan });
        seen(event.id);
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      heard();
      parser.feed(value);
      if (batch.length > 0) {
        const events = batch;
        batch = [];
        options.onEvents(events);
      }
    }
  } catch (error) {
    if (silent) throw new Error('no heartbeat from the service', { cause: error });
    throw error;
  } finally {
    clearTimeout(silence);
    options.signal.removeEventListener('abort', abort);
  }
}
