// The Server-Sent Events transport: writes an event-stream reply (src/operations/handler.ts) to
// Koa. It keeps the socket open and unbuffered, sends a heartbeat comment at once (so the client
// knows the stream is open) and then at least every HEARTBEAT_MS, polls the reply's source and
// waits for the socket to drain between writes, and stops polling as soon as the client leaves.
import { PassThrough } from 'node:stream';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import type { EventStreamReply, StreamEvent } from '../operations/handler.js';

export const HEARTBEAT_MS = 15_000;

export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

const HEARTBEAT = ': heartbeat\n\n';

/** One event on the wire; each line of the data is a data field of its own, as the format requires. */
export function formatEvent({ id, event, data }: StreamEvent): string {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return `id: ${id}\nevent: ${event}\n${lines.join('')}\n`;
}

export function writeEventStream(ctx: KoaContext, reply: EventStreamReply, log: Logger | undefined): void {
  const source = reply.events;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  ctx.status = reply.status;
  ctx.set(EVENT_STREAM_HEADERS);
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
    if (!stream.write(text))
      await new Promise<void>((resolve) => {
        // Both listeners go once either fires: left behind, one per wait piled up on a long stream.
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
      });
  };

  void (async () => {
    let nextHeartbeat = Date.now() + HEARTBEAT_MS;
    await send(HEARTBEAT);
    while (open) {
      let events: StreamEvent[];
      try {
        events = await source.poll();
      } catch (error) {
        if (open) log?.warn({ err: error }, source.failureMessage);
        break;
      }
      for (const event of events) {
        if (!open) break;
        await send(formatEvent(event));
      }
      if (Date.now() >= nextHeartbeat) {
        await send(HEARTBEAT);
        nextHeartbeat = Date.now() + HEARTBEAT_MS;
      }
      if (open && !source.behind) await pause(Math.min(source.pollIntervalMs, Math.max(0, nextHeartbeat - Date.now())));
    }
    stream.end();
  })();
}
