// The body of one OTLP export request, decoded as it arrives and handed to the span mapping once.
// Ingestion lets go of the decoded spans as soon as they are mapped to rows: kept for the whole
// write, each batch's decoded spans were copied by every young-generation collection that ran
// while the batch waited on the database (BENCHMARKS.md, "What the parts of ingestion cost",
// commit be078eb). Should the spans have to be mapped again (keys read too long ago,
// ingest-traces.ts), the body is decoded again: a Buffer outside the JavaScript heap, which costs
// the collector nothing to keep.
import type { DecodedExportRequest } from './otlp-request.js';

export class ExportBody {
  #decoded: DecodedExportRequest | undefined;

  /** Decodes the bytes at once: a body that is not an export request fails here (a 400), before anything is stored. */
  constructor(
    private readonly bytes: Buffer,
    private readonly decode: (bytes: Buffer) => DecodedExportRequest,
  ) {
    this.#decoded = decode(bytes);
  }

  /** The decoded request: the first call hands over the one decoded at construction and lets go of it, a later one decodes the bytes again. */
  take(): DecodedExportRequest {
    const decoded = this.#decoded ?? this.decode(this.bytes);
    this.#decoded = undefined;
    return decoded;
  }
}
