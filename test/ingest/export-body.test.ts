// An export body hands its decoded spans over once and decodes the bytes again when asked for
// them a second time (the mapping again after keys read too long ago): a real exporter's body,
// in both encodings.
import { SpanKind } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { expect } from 'chai';
import { ExportBody } from '../../src/ingest/export-body.js';
import { exportBodyOf, type OtlpFormat } from '../../src/ingest/otlp-format.js';
import type { DecodedExportRequest } from '../../src/ingest/otlp-request.js';
import { OtlpDecodeError } from '../../src/ingest/otlp-request.js';
import { recordSpans } from '../support/otel.js';

async function exporterBody(format: OtlpFormat): Promise<Buffer> {
  const spans = await recordSpans({ 'service.name': 'api' }, (tracer) => {
    tracer
      .startSpan('charge', { kind: SpanKind.CLIENT, startTime: [1795355100, 5], attributes: { 'vendor.cost': 0.25, 'vendor.unit': 'api' } })
      .end([1795355101, 7]);
  });
  const serializer = format === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer;
  return Buffer.from(serializer.serializeRequest(spans) as Uint8Array);
}

describe('export bodies', () => {
  for (const format of ['protobuf', 'json'] as const) {
    it(`${format}: the first take hands over what was decoded on arrival, a later one decodes the bytes again`, async () => {
      const body = exportBodyOf(format, await exporterBody(format));
      const first = body.take();
      expect(first.resourceSpans[0]?.spans.map((span) => span.name)).to.deep.equal(['charge']);
      const second = body.take();
      expect(second).to.not.equal(first);
      expect(second).to.deep.equal(first);
    });
  }

  it('decodes on arrival only once, and again for each later take', () => {
    const decoded: DecodedExportRequest = { resourceSpans: [] };
    let decodes = 0;
    const body = new ExportBody(Buffer.alloc(0), () => {
      decodes += 1;
      return decodes === 1 ? decoded : { resourceSpans: [] };
    });
    expect(decodes).to.equal(1);
    expect(body.take()).to.equal(decoded);
    expect(decodes).to.equal(1);
    body.take();
    body.take();
    expect(decodes).to.equal(3);
  });

  it('refuses a body that is not an export request when it arrives, before anything is taken', () => {
    expect(() => exportBodyOf('protobuf', Buffer.from([0xff, 0xff, 0xff]))).to.throw(OtlpDecodeError);
    expect(() => exportBodyOf('json', Buffer.from('{"resourceSpans": 5}'))).to.throw(OtlpDecodeError);
  });
});
