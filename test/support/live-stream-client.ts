// A live-stream client for tests that cross failures: it reads GET /traces/live/stream with fetch,
// and when the stream ends or breaks it reconnects with Last-Event-ID (as the documentation tells
// clients to), through whatever the URL points at (nginx, in the cluster suite). It keeps every
// span it was sent and each one sent more than once.
import { createParser } from 'eventsource-parser';
import { UPSTREAM_HEADER } from '../../scripts/lib/cluster/index.js';

/** No byte (not even the 15-second heartbeat) for this long: the connection is taken as dead. */
const SILENCE_LIMIT_MS = 20_000;

export class LiveStreamClient {
  readonly seen = new Set<string>();
  readonly repeated: string[] = [];
  /** The Last-Event-ID of each reconnection, and the instance that answered it. */
  readonly reconnections: string[] = [];
  lastEventId: string | undefined;
  /** The ids of the first event of each connection, for a failure's message. */
  readonly firstIds: string[] = [];
  private readonly stopper = new AbortController();
  private running: Promise<void> = Promise.resolve();
  private connection: AbortController | undefined;

  private constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    readonly firstUpstream: string,
  ) {}

  /**
   * Opens streams until one is served by each of `upstreams` instances (nginx names the instance
   * in a response header), closing the extra ones; bounded. An instance nginx has just seen
   * fail rests for its fail_timeout (5 s), so the attempts are spread over some seconds.
   */
  static async onEachUpstream(url: string, headers: Record<string, string>, upstreams: number): Promise<LiveStreamClient[]> {
    const clients = new Map<string, LiveStreamClient>();
    for (let attempt = 0; attempt < 20 * upstreams && clients.size < upstreams; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const connection = new AbortController();
      const response = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: connection.signal });
      const upstream = response.headers.get(UPSTREAM_HEADER) ?? '';
      if (response.status !== 200) throw new Error(`the live stream answered ${response.status}: ${await response.text()}`);
      if (clients.has(upstream)) {
        connection.abort();
        continue;
      }
      const client = new LiveStreamClient(url, headers, upstream);
      client.running = client.read(response, connection).then(() => client.follow());
      clients.set(upstream, client);
    }
    if (clients.size < upstreams) throw new Error(`streams reached only ${[...clients.keys()].join(', ')}`);
    return [...clients.values()];
  }

  /** Waits until `done(seen)` holds, or throws after `timeoutMs`. */
  async until(done: (seen: Set<string>) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.seen)) {
      if (Date.now() > deadline) throw new Error('timed out waiting for spans on the live stream');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Breaks the connection being read, as a network failure would: the client reconnects with Last-Event-ID. */
  drop(): void {
    this.connection?.abort();
  }

  async close(): Promise<void> {
    this.stopper.abort();
    await this.running.catch(() => undefined);
  }

  /** Reconnects after each end or break until closed. */
  private async follow(): Promise<void> {
    while (!this.stopper.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (this.stopper.signal.aborted) return;
      const connection = new AbortController();
      try {
        const headers: Record<string, string> = { ...this.headers, Accept: 'text/event-stream' };
        if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
        const response = await fetch(this.url, { headers, signal: connection.signal });
        this.reconnections.push(
          `${this.lastEventId ?? '-'}@${response.headers.get(UPSTREAM_HEADER) ?? '?'}:${response.status} at ${new Date().toISOString()}`,
        );
        if (response.status !== 200) {
          await response.text().catch(() => undefined);
          continue;
        }
        await this.read(response, connection);
      } catch {
        // refused or broken: reconnect
      }
    }
  }

  private async read(response: Response, connection: AbortController): Promise<void> {
    this.connection = connection;
    const stop = () => connection.abort();
    this.stopper.signal.addEventListener('abort', stop);
    let silence: NodeJS.Timeout | undefined;
    let first = true;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(stop, SILENCE_LIMIT_MS);
    };
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== 'span' || !event.id) return;
        const span = JSON.parse(event.data) as { trace_id: string; span_id: string };
        const key = `${span.trace_id}/${span.span_id}`;
        if (this.seen.has(key)) this.repeated.push(key);
        if (first) this.firstIds.push(event.id);
        first = false;
        this.seen.add(key);
        this.lastEventId = event.id;
      },
    });
    try {
      heard();
      const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        heard();
        parser.feed(value);
      }
    } catch {
      // aborted or broken: the caller reconnects
    } finally {
      clearTimeout(silence);
      this.stopper.signal.removeEventListener('abort', stop);
    }
  }
}
