// The `regex` filter operator through the engine reads on every database (docs/filter-semantics.md):
// an unanchored, case-sensitive RE2 search of the text form, folding ASCII case under `(?i)`;
// `%`, `_` and `\` in a pattern; `$` and a final newline; code points; absent values; the
// refusals that keep MariaDB's backtracking engine bounded or its answers RE2's; and the
// statement time limit, which answers a 422, never a 500.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call, type ApiResponse } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { expectFilterSelects } from '../support/filter-cases.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_900_000_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3_600_000_000_000n) };

interface Fixture {
  id: string;
  span: Partial<SpanRow>;
  attributes?: Record<string, unknown>;
}

const FIXTURES: Fixture[] = [
  {
    id: 'get',
    span: { span_name: 'GET /api/v2/orders', span_kind: 'SPAN_KIND_SERVER', service_name: 'checkout' },
    attributes: { 'http.status_code': 200, retry: true, tags: ['a', 'b'] },
  },
  {
    id: 'lower',
    span: { span_name: 'get /api/v2/orders', span_kind: 'SPAN_KIND_CLIENT', service_name: 'Checkout' },
    attributes: { 'http.status_code': '404' },
  },
  {
    id: 'newline',
    span: { span_name: 'timeout\n', span_kind: 'SPAN_KIND_INTERNAL', status_message: 'line one\nline two' },
    attributes: { note: 'end\n' },
  },
  { id: 'unicode', span: { span_name: 'café ☕ 日本', span_kind: 'SPAN_KIND_INTERNAL' }, attributes: { note: 'Ünïcödé 😀' } },
  { id: 'wild', span: { span_name: '50%_off\\now', span_kind: 'SPAN_KIND_PRODUCER', billing_sku_name: '100%' } },
  { id: 'bare', span: { span_name: '', span_kind: 'SPAN_KIND_SERVER', service_name: null } },
];

const hexId = (index: number) => (index + 1).toString(16).padStart(16, '0');
const idOf = new Map(FIXTURES.map((fixture, index) => [hexId(index), fixture.id]));

function rows(applicationId: string): SpanRow[] {
  return FIXTURES.map((fixture, index) =>
    spanRow({
      application_id: applicationId,
      trace_id: 'e'.repeat(32),
      span_id: hexId(index),
      start_time_unix_nano: (BASE + BigInt(index) * 1_000_000_000n).toString(),
      service_name: null,
      ...fixture.span,
      span_attributes: fixture.attributes ? JSON.stringify(fixture.attributes) : null,
      resource_attributes: null,
    }),
  );
}

const r = (field: string, value: string) => ({ field, op: 'regex', value });
const ALL = FIXTURES.map((fixture) => fixture.id);

type Case = [name: string, filter: unknown, want: string[]];

const CASES: Case[] = [
  ['an unanchored search', r('span_name', 'api/v2'), ['get', 'lower']],
  ['^ anchors at the start', r('span_name', '^GET '), ['get']],
  ['case-sensitive', r('span_name', 'GET'), ['get']],
  ['case as a class', r('span_name', '^[Gg][Ee][Tt] '), ['get', 'lower']],
  ['(?i) folds ASCII case', r('span_name', '(?i)^get /API'), ['get', 'lower']],
  ['(?i) within a group only', r('service_name', '(?i:c)heckout'), ['get', 'lower']],
  ['(?-i) ends it', r('span_name', '(?i)^get(?-i) /API'), []],
  ['% and _ are plain characters in a pattern', r('span_name', '50%_off'), ['wild']],
  ['_ matches only an underscore', r('span_name', '50%.off'), ['wild']],
  ['% matches only a percent sign', r('billing.sku_name', '^100%$'), ['wild']],
  ['\\\\ matches a backslash', r('span_name', 'off\\\\now'), ['wild']],
  ['\\ escapes the next character', r('span_name', '^50\\%\\_'), ['wild']],
  ['. matches any character but a newline', r('span_name', '^50.'), ['wild']],
  ['$ does not match before a final newline', r('span_name', 'timeout$'), []],
  ['\\n matches the newline itself', r('span_name', 'timeout\\n$'), ['newline']],
  ['(?m)$ matches at the end of each line', r('status_message', '(?m)one$'), ['newline']],
  ['. does not cross a newline', r('status_message', 'one.line'), []],
  ['(?s). does', r('status_message', '(?s)one.line'), ['newline']],
  ['non-ASCII characters are one character each', r('span_name', '^caf. . ..$'), ['unicode']],
  ['a hex escape for a character outside the BMP', r('span_attributes.note', '\\x{1F600}$'), ['unicode']],
  ['\\w is ASCII-only, as in RE2', r('span_attributes.note', '^\\w'), ['newline']],
  ['attributes read their text form: a number', r('span_attributes.http.status_code', '^[0-9]{3}$'), ['get', 'lower']],
  ['attributes read their text form: a boolean', r('span_attributes.retry', '^true$'), ['get']],
  ['attributes read their text form: an array', r('span_attributes.tags', '^\\["a",'), ['get']],
  ['span_kind reads the stored full name', r('span_kind', '^SPAN_KIND_(SERVER|CLIENT)$'), ['get', 'lower', 'bare']],
  ['the empty pattern matches every present value', r('span_name', ''), ALL],
  ['a missing attribute matches nothing', r('span_attributes.nope', ''), []],
  ['a null column matches nothing', r('service_name', '.*'), ['get', 'lower']],
  ['not matches the absent values too', { not: r('service_name', '^check') }, ['lower', 'newline', 'unicode', 'wild', 'bare']],
  ['in a group with other operators', { and: [r('span_name', 'orders$'), { field: 'span_kind', op: 'eq', value: 'SERVER' }] }, ['get']],
];

onEachDatabase('regex filter', (app) => {
  let caller: EngineCaller;
  let stored: SpanRow[];
  before(async () => {
    caller = await engineCaller(app());
    stored = rows(caller.appId);
    await storeSpans(app().server.knex, stored);
  });

  for (const [name, filter, want] of CASES) {
    it(name, async () => {
      await expectFilterSelects({ url: app().url, caller, window: WINDOW, stored, labelOf: idOf }, filter, want);
    });
  }

  it('reads traces, metrics and analytics with a regex filter', async () => {
    const filter = r('span_name', '^GET ');
    const traces = await call(app().url, 'POST', '/traces', {
      query: { ...WINDOW, search_child_spans: 'true' },
      headers: caller.headers,
      json: { filter },
    });
    expect(traces.status, traces.text).to.equal(200);
    expect(traces.body.data.map((trace: { trace_id: string }) => trace.trace_id)).to.deep.equal(['e'.repeat(32)]);
    const metrics = await call(app().url, 'POST', '/engine/metrics', { query: WINDOW, headers: caller.headers, json: { filter } });
    expect(metrics.status, metrics.text).to.equal(200);
    const analytics = await call(app().url, 'POST', '/engine/analytics', {
      headers: caller.headers,
      query: WINDOW,
      json: { grain: 'spans', measures: [{ fn: 'count' }], filter: r('span_name', 'orders$') },
    });
    expect(analytics.status, analytics.text).to.equal(200);
  });

  for (const [pattern, reason] of [
    ['^(a+)+$', 'exponential time'],
    ['(a|aa)*b', 'exponential time'],
    ['(x+x+)+y', 'exponential time'],
    ['.*a.*b.*c.*d', 'at most 3 unbounded quantifiers'],
    ['(a)\\1', 'not an RE2 regular expression'],
    ['(?i)café', 'é (U+00E9) is not ASCII; end the flag before it'],
    ['\\p{Greek}', 'Unicode classes (\\p, \\P) are not supported'],
  ]) {
    it(`answers 422 at the value to ${pattern}, saying why`, async () => {
      for (const path of ['/engine/query', '/traces'] as const) {
        const response = await call(app().url, 'POST', path, {
          query: WINDOW,
          headers: caller.headers,
          json: { filter: { and: [r('span_name', pattern as string)] } },
        });
        expect(response.status, response.text).to.equal(422);
        expect(response.body.detail).to.have.length(1);
        expect(response.body.detail[0]).to.include({ type: 'value_error' });
        expect(response.body.detail[0].loc).to.deep.equal(['body', 'filter', 'and', 0, 'value']);
        expect(response.body.detail[0].msg).to.include(reason);
      }
    });
  }

  it('answers 422 too_long to a pattern over 1000 characters, and 422 to regex on a number field', async () => {
    const long = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: caller.headers,
      json: { filter: r('span_name', 'a'.repeat(1001)) },
    });
    expect(long.status, long.text).to.equal(422);
    expect(long.body.detail).to.deep.equal([
      { loc: ['body', 'filter', 'value'], msg: 'a regex pattern may be at most 1000 characters long', type: 'too_long' },
    ]);
    const numeric = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: caller.headers,
      json: { filter: r('duration_ms', '^1') },
    });
    expect(numeric.status, numeric.text).to.equal(422);
    expect(numeric.body.detail).to.deep.equal([
      { loc: ['body', 'filter', 'op'], msg: 'operator "regex" compares text; "duration_ms" holds numbers', type: 'value_error' },
    ]);
  });
});

// Long values and a pattern whose search is slow enough (PCRE2 backtracks polynomially on it;
// RE2 scans each value once) to pass a 1 ms limit on both databases, every time.
const SLOW_SPANS = 200;
const LONG_NOTE = `d${'abc'.repeat(4000)}`;

onEachDatabase(
  'regex statement time limit',
  (app) => {
    let caller: EngineCaller;
    before(async () => {
      caller = await engineCaller(app());
      const slow = Array.from({ length: SLOW_SPANS }, (_, index) =>
        spanRow({
          application_id: caller.appId,
          trace_id: index.toString(16).padStart(32, '0'),
          span_id: hexId(index),
          start_time_unix_nano: (BASE + BigInt(index) * 1_000_000n).toString(),
          span_attributes: JSON.stringify({ note: LONG_NOTE }),
        }),
      );
      await storeSpans(app().server.knex, slow);
    });

    const slowFilter = r('span_attributes.note', 'a.*b.*c.*d');
    const expectTimeLimit = (response: ApiResponse) => {
      expect(response.status, response.text.slice(0, 300)).to.equal(422);
      expect(response.body.detail).to.have.length(1);
      expect(response.body.detail[0]).to.include({ type: 'time_limit' });
      expect(response.body.detail[0].loc).to.deep.equal(['body', 'filter']);
      expect(response.body.detail[0].msg).to.include('time limit of 1 ms');
      expect(response.body.detail[0].msg).to.include('narrow the time window');
    };

    it('POST /engine/query past the limit answers 422 time_limit at the filter', async () => {
      expectTimeLimit(
        await call(app().url, 'POST', '/engine/query', { query: WINDOW, headers: caller.headers, json: { filter: slowFilter } }),
      );
    });

    it('POST /traces, POST /engine/metrics and POST /engine/analytics too', async () => {
      expectTimeLimit(
        await call(app().url, 'POST', '/traces', {
          query: { ...WINDOW, search_child_spans: 'true' },
          headers: caller.headers,
          json: { filter: slowFilter },
        }),
      );
      expectTimeLimit(
        await call(app().url, 'POST', '/engine/metrics', { query: WINDOW, headers: caller.headers, json: { filter: slowFilter } }),
      );
      expectTimeLimit(
        await call(app().url, 'POST', '/engine/analytics', {
          query: WINDOW,
          headers: caller.headers,
          json: { grain: 'spans', measures: [{ fn: 'count' }], filter: slowFilter },
        }),
      );
    });

    it('leaves statements without a regex unlimited, and the pooled connections usable', async () => {
      const plain = await call(app().url, 'POST', '/engine/query', {
        query: WINDOW,
        headers: caller.headers,
        json: { filter: { field: 'span_attributes.note', op: 'contains', value: 'dabc' } },
      });
      expect(plain.status, plain.text.slice(0, 300)).to.equal(200);
      expect(plain.body.total).to.equal(SLOW_SPANS);
    });
  },
  { REGEX_STATEMENT_TIMEOUT_MS: '1' },
);
