// The largest filters the document allows (MAX_FILTER_NODES nodes, MAX_FILTER_DEPTH levels, 1000
// members a group) in their worst shapes for the databases' parsers: a wide AND of ORs, the
// deepest nesting with the remaining nodes as siblings at the bottom, and a sibling group at
// every level. Each answers 200 on every engine read (analytics included) of every database, and
// agrees with the reference evaluator.
import { expect } from 'chai';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES } from '../../src/filter/ast.js';
import { validateFilter } from '../../src/filter/validate.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineReadPath, nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { expectedAnalytics, expectedMetrics, expectedSpans, expectedTraces } from '../support/reference-evaluator.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const WINDOW = { startNs: BASE, endNs: BASE + 3_600_000_000_000n };
const QUERY = { start_time: nanosToRfc3339(WINDOW.startNs), end_time: nanosToRfc3339(WINDOW.endNs) };

type Node = Record<string, unknown>;
const c = (field: string, op: string, value: string): Node => ({ field, op, value });
const range = (length: number) => Array.from({ length }, (_, index) => index);

// Span attribute `k` is `v<n>`, `n` a number, `s` the span's name; three traces of two spans.
const SPANS = [
  { k: 'v5', n: 3, name: 'checkout', cost: 0.5 },
  { k: 'v500', n: 40, name: 'cart', cost: 2 },
  { k: 'v998', n: 7, name: 'pay', cost: null },
  { k: 'zzz', n: 900, name: 'login', cost: 1.25 },
  { k: 'v17', n: -2, name: 'search', cost: 0 },
  { k: 'v1500', n: 55, name: 'ship', cost: 3 },
];

function rows(applicationId: string): SpanRow[] {
  return SPANS.map((span, index) =>
    spanRow({
      application_id: applicationId,
      trace_id: (Math.floor(index / 2) + 1).toString(16).padStart(32, '0'),
      span_id: (index + 1).toString(16).padStart(16, '0'),
      parent_span_id: index % 2 === 1 ? index.toString(16).padStart(16, '0') : null,
      start_time_unix_nano: (BASE + BigInt(index) * 1_000_000n).toString(),
      span_name: span.name,
      cost: span.cost,
      span_attributes: JSON.stringify({ k: span.k, n: span.n }),
      resource_attributes: JSON.stringify({ 'service.name': span.name }),
    }),
  );
}

/** `{"and":[{"or":[999]},{"or":[998]}]}`: 2000 nodes, two groups of 999 and 998 attribute conditions. */
function wideAndOfOrs(): Node {
  return {
    and: [
      { or: range(999).map((index) => c('span_attributes.k', 'eq', `v${index}`)) },
      { or: range(998).map((index) => c('span_attributes.n', index % 2 ? 'lt' : 'gt', String(index * 3))) },
    ],
  };
}

/** 97 one-member groups, then the remaining nodes as attribute conditions side by side. */
function deepThenWide(kind: 'and' | 'or'): Node {
  const siblings = MAX_FILTER_NODES - MAX_FILTER_DEPTH;
  const bottom =
    kind === 'or'
      ? range(siblings).map((index) =>
          c(index % 2 ? 'resource_attributes.service.name' : 'span_attributes.k', index % 3 ? 'eq' : 'starts_with', `v${index}`),
        )
      : range(siblings).map((index) =>
          c(
            index % 2 ? 'span_attributes.n' : 'span_attributes.k',
            index % 2 ? 'gt' : 'neq',
            index % 2 ? String(1 - (index % 1000)) : `x${index}`,
          ),
        );
  // A group holds at most 1000 members: two of them, side by side.
  let node: Node = { [kind === 'and' ? 'or' : 'and']: [{ [kind]: bottom.slice(0, 1000) }, { [kind]: bottom.slice(1000) }] };
  for (let level = 3; level < MAX_FILTER_DEPTH; level += 1) node = { [level % 2 ? 'and' : 'or']: [node] };
  return node;
}

/** At every level the deeper group, then 19 attribute conditions: 20 nodes a level, 100 levels. */
function siblingsAtEveryLevel(): Node {
  let node: Node = { or: range(19).map((index) => c('span_attributes.k', 'eq', `v${index * 100}`)) };
  for (let level = 2; level < MAX_FILTER_DEPTH; level += 1) {
    const conditions = range(19).map((index) =>
      level % 2 ? c('span_attributes.n', 'lt', String(-index)) : c('span_attributes.k', 'neq', `x${level}-${index}`),
    );
    node = { [level % 2 ? 'or' : 'and']: [node, ...conditions] };
  }
  return node;
}

const FILTERS: Array<[name: string, filter: Node]> = [
  ['a wide AND of two ORs of 999 and 998 attribute conditions', wideAndOfOrs()],
  ['100 levels, the remaining nodes as OR siblings at the deepest level', deepThenWide('or')],
  ['100 levels, the remaining nodes as AND siblings at the deepest level', deepThenWide('and')],
  ['the deeper group before 19 siblings at each of 100 levels', siblingsAtEveryLevel()],
];

/** An analytics answer's count per group key, over all its buckets. */
function countsByGroup(
  groups: Array<{ key: Record<string, string | null>; points: Array<{ values: Array<number | null> }> }>,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const group of groups) counts[JSON.stringify(group.key)] = group.points.reduce((sum, point) => sum + (point.values[0] ?? 0), 0);
  return counts;
}

function countNodes(node: Node): number {
  const children = (node.and ?? node.or) as Node[] | undefined;
  return 1 + (children ?? []).reduce((sum, child) => sum + countNodes(child), 0);
}

onEachDatabase('filters at the documented limits', (app) => {
  let caller: EngineCaller;
  let stored: SpanRow[];
  before(async () => {
    caller = await engineCaller(app());
    stored = rows(caller.appId);
    await storeSpans(app().server.knex, stored);
  });

  async function post<P extends EngineReadPath>(path: P, filter: Node, query: Record<string, string | number | boolean> = {}) {
    const response = await call(app().url, 'POST', path, { query: { ...QUERY, ...query }, headers: caller.headers, json: { filter } });
    expect(response.status, `${path}: ${response.text.slice(0, 300)}`).to.equal(200);
    return parseEngineRead(path, response.text);
  }

  for (const [name, filter] of FILTERS) {
    it(`answers ${name} on every engine read`, async () => {
      expect(countNodes(filter)).to.be.within(MAX_FILTER_NODES - 20, MAX_FILTER_NODES);
      expect(validateFilter(filter).ok, 'within the documented limits').to.equal(true);

      const spans = await post('/engine/query', filter, { limit: 100 });
      const wantedSpans = expectedSpans(stored, WINDOW, filter).map((span) => span.span_id);
      expect(spans.data.map((span: { span_id: string }) => span.span_id)).to.deep.equal(wantedSpans);
      expect(spans.total).to.equal(wantedSpans.length);

      for (const searchChildSpans of [false, true]) {
        const traces = await post('/traces', filter, { limit: 100, search_child_spans: searchChildSpans });
        const wanted = expectedTraces(stored, WINDOW, filter, searchChildSpans).map((trace) => trace.trace_id);
        expect(
          traces.data.map((trace: { trace_id: string }) => trace.trace_id),
          `search_child_spans=${searchChildSpans}`,
        ).to.deep.equal(wanted);
      }

      const metrics = await post('/engine/metrics', filter);
      const wantedMetrics = expectedMetrics(stored, WINDOW, filter);
      expect(metrics.trace_count).to.equal(wantedMetrics.trace_count);
      expect(metrics.spans_per_trace.max).to.equal(wantedMetrics.spans_per_trace.max);

      for (const grain of ['spans', 'traces'] as const) {
        const body = { grain, filter, group_by: ['span_name'], granularity: 'hour', measures: [{ fn: 'count' }] };
        const response = await call(app().url, 'POST', '/engine/analytics', { query: QUERY, headers: caller.headers, json: body });
        expect(response.status, `/engine/analytics ${grain}: ${response.text.slice(0, 300)}`).to.equal(200);
        const wanted = expectedAnalytics(stored, WINDOW, body, 3_600_000_000_000n);
        expect(countsByGroup(response.body.groups), `/engine/analytics ${grain}`).to.deep.equal(countsByGroup(wanted.groups));
      }
    });
  }

  it('matches some spans and not others with these filters, so that the answers mean something', () => {
    for (const [name, filter] of FILTERS) {
      const matched = expectedSpans(stored, WINDOW, filter).length;
      expect(matched, name).to.be.within(1, stored.length - 1);
    }
  });
});
