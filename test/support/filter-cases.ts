// One table-driven filter case through POST /engine/query: the spans answered, named by the test's
// own labels, must be the expected ones, and the reference evaluator must agree on the same rows.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import type { EngineCaller } from './auth.js';
import { call } from './contract.js';
import { spanMatches } from './reference-evaluator.js';

export interface FilterCaseScene {
  url: string;
  caller: EngineCaller;
  window: { start_time: string; end_time: string };
  stored: SpanRow[];
  /** span_id → the test's name for the span. */
  labelOf: Map<string, string>;
}

export async function expectFilterSelects(scene: FilterCaseScene, filter: unknown, want: string[]): Promise<void> {
  const { url, caller, window, stored, labelOf } = scene;
  const response = await call(url, 'POST', '/engine/query', {
    query: { ...window, limit: 100 },
    headers: caller.headers,
    json: { filter },
  });
  expect(response.status, response.text.slice(0, 300)).to.equal(200);
  const got = response.body.data.map((span: { span_id: string }) => labelOf.get(span.span_id)).sort();
  expect(got).to.deep.equal([...want].sort());
  const reference = stored.filter((span) => spanMatches(span, filter)).map((span) => labelOf.get(span.span_id));
  expect(reference.sort(), 'reference evaluator').to.deep.equal([...want].sort());
}
