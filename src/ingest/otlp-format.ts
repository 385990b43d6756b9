// The two OTLP/HTTP encodings, chosen by the request's Content-Type: binary protobuf and OTLP
// JSON. The response is written in the request's encoding.
import { UnsupportedMediaTypeError } from '../errors.js';
import { ExportBody } from './export-body.js';
import { decodeJsonRequest, jsonResponse } from './otlp-json.js';
import { decodeProtobufRequest, encodeProtobufResponse } from './otlp-protobuf.js';
import type { DecodedExportRequest, PartialSuccess } from './otlp-request.js';

export type OtlpFormat = 'protobuf' | 'json';

const MEDIA_TYPES: Record<string, OtlpFormat> = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' };

/** The encoding named by a Content-Type header (parameters such as charset are ignored); else 415. */
export function otlpFormatOf(contentType: string | undefined): OtlpFormat {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const format = MEDIA_TYPES[mediaType];
  if (!format) {
    throw new UnsupportedMediaTypeError(
      `unsupported content type ${mediaType || '(none)'}; use application/x-protobuf or application/json`,
    );
  }
  return format;
}

export function decodeExportRequest(format: OtlpFormat, body: Buffer): DecodedExportRequest {
  return format === 'protobuf' ? decodeProtobufRequest(body) : decodeJsonRequest(body);
}

/** The body in its encoding, decoded at once (a body that is not an export request is a 400 here). */
export function exportBodyOf(format: OtlpFormat, body: Buffer): ExportBody {
  return new ExportBody(body, (bytes) => decodeExportRequest(format, bytes));
}

export interface EncodedResponse {
  contentType: string;
  body: Buffer | object;
}

export function encodeExportResponse(format: OtlpFormat, partialSuccess: PartialSuccess | undefined): EncodedResponse {
  if (format === 'json') return { contentType: 'application/json', body: jsonResponse(partialSuccess) };
  const bytes = encodeProtobufResponse(partialSuccess);
  return { contentType: 'application/x-protobuf', body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
