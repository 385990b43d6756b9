// One webhook attempt on the wire: a POST of the event's body to the checked, pinned address,
// with one timeout for the whole exchange, no redirect followed (a 3xx is a failure: the
// redirect's target was never checked), and at most RESPONSE_BYTES of the answer read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from './destinations.js';

/** The most of a receiver's answer read: it is not kept, only drained so the socket ends cleanly. */
export const RESPONSE_BYTES = 4096;

export interface AttemptOutcome {
  /** The receiver's status code; null when none arrived. */
  statusCode: number | null;
  /** Why the attempt failed; null when it succeeded (a 2xx). */
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the attempt (the deliverer stops). */
  signal?: AbortSignal;
}

/** A lookup that answers the checked address whatever the name: DNS cannot change it between check and connect. */
function pinnedLookup(destination: Destination): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
}

function failureText(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400) return `redirect (${statusCode}) not followed: a webhook URL must answer 2xx itself`;
  return `receiver answered ${statusCode}`;
}

export function postWebhook(destination: Destination, { headers, body, timeoutMs, signal }: PostOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const { url } = destination;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ statusCode, error, durationMs: Math.round(performance.now() - started) });
    };
    const request = transport.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      lookup: pinnedLookup(destination),
      // A fresh connection per attempt: no socket of another endpoint's reused.
      agent: false,
    });
    const timer = setTimeout(() => {
      finish(null, `no answer within ${timeoutMs / 1000} s`);
      request.destroy();
    }, timeoutMs);
    const onAbort = () => {
      finish(null, 'stopped: the service shut down during the attempt');
      request.destroy();
    };
    signal?.addEventListener('abort', onAbort);
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, `connection failed: ${error.code ?? error.message}`));
    request.on('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_BYTES) response.destroy();
      });
      const done = () => finish(statusCode, statusCode >= 200 && statusCode < 300 ? null : failureText(statusCode));
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
