// POST /v1/traces (operationId exportTraces): OTLP/HTTP trace export. The body is read here,
// raw, not by the JSON body parser: it may be protobuf, gzip-compressed and up to
// INGEST_MAX_BODY_BYTES. Authentication and authorization (write:traces on the application named
// by X-Vendor-App-Id, or an API key's own application when it is absent) have run before, and
// left the application in the request's scope. The usage is counted by the ingestion service.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import { ingestTarget, ingestTraces } from '../ingest/ingest-traces.js';
import { encodeExportResponse, exportBodyOf, otlpFormatOf } from '../ingest/otlp-format.js';
import { readOtlpBody } from '../ingest/read-body.js';

export function exportTraces({
  config,
  knex,
  spans,
  logger,
  prices,
  clock = Date.now,
  ingestActivity,
}: ServiceDeps): OperationHandler<operations['exportTraces']> {
  return async (request) => {
    const format = otlpFormatOf(request.headers['content-type']);
    const { body, wireBytes } = await readOtlpBody(request.incoming, config.ingestBodyLimitBytes);
    const target = ingestTarget(request.scope);
    const principal = principalOf(request);
    const meter = {
      apiKey: principal.kind === 'api_key' ? principal.apiKey : undefined,
      bytesReceived: wireBytes,
      bytesDecompressed: body.length,
      now: clock(),
    };
    const partialSuccess = await ingestTraces(knex, spans, prices, target, exportBodyOf(format, body), request.log ?? logger, {
      meter,
      activity: ingestActivity,
    });
    const response = encodeExportResponse(format, partialSuccess);
    return { status: 200, headers: { 'Content-Type': response.contentType }, body: response.body };
  };
}
