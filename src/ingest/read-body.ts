// Reads an OTLP request body from the socket: identity or gzip content encoding, and a size
// limit that applies to the decompressed bytes (413). Neither an oversized body nor a gzip bomb
// is ever held in memory whole: reading and decompressing both stop at the limit.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { MalformedRequestError, TooLargeError, UnsupportedMediaTypeError } from '../errors.js';
import { OtlpDecodeError } from './otlp-request.js';

type ContentCoding = 'identity' | 'gzip';

export function contentCodingOf(header: string | undefined): ContentCoding {
  const coding = (header ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return 'identity';
  if (coding === 'gzip') return 'gzip';
  throw new UnsupportedMediaTypeError(`unsupported content encoding ${header}; use gzip or identity`);
}

/**
 * The compressed bytes may exceed the limit only by gzip's own overhead on incompressible data
 * (well under 1 %); a larger gzip body cannot decompress to one within the limit.
 */
function wireLimit(limitBytes: number, coding: ContentCoding): number {
  return coding === 'gzip' ? limitBytes + Math.ceil(limitBytes / 100) + 1024 : limitBytes;
}

/**
 * Collects a stream up to limitBytes. Past the limit it stops collecting but leaves the stream
 * flowing, so the rest of the request is drained and discarded and the 413 reaches the client
 * (destroying the stream would reset the connection before the answer is read).
 */
function collect(stream: Readable, limitBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (error: Error | undefined) => {
      stream.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limitBytes) settle(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined);
    const onClose = () => settle(new MalformedRequestError('the request ended before its body was complete'));
    stream.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose);
  });
}

const gunzip = promisify(zlib.gunzip);

export interface OtlpBody {
  /** The body, decompressed. */
  body: Buffer;
  /** Its length as received (before decompression), for usage metering. */
  wireBytes: number;
}

/** The request body, decompressed: 413 past the limit, 400 for bad gzip data, 415 for another coding. */
export async function readOtlpBody(request: IncomingMessage, limitBytes: number): Promise<OtlpBody> {
  const coding = contentCodingOf(request.headers['content-encoding']);
  const tooLarge = () => new TooLargeError(`request body exceeds ${limitBytes} bytes${coding === 'gzip' ? ' after decompression' : ''}`);
  const maxWireBytes = wireLimit(limitBytes, coding);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxWireBytes) {
    request.resume(); // drain and discard, so that the client reads the 413 rather than a reset
    throw tooLarge();
  }
  const wire = await collect(request, maxWireBytes, tooLarge);
  if (coding === 'identity') return { body: wire, wireBytes: wire.length };
  try {
    // In the thread pool, and stopped as soon as the output passes the limit.
    return { body: await gunzip(wire, { maxOutputLength: limitBytes }), wireBytes: wire.length };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new OtlpDecodeError(`invalid gzip body: ${(error as Error).message}`);
  }
}
