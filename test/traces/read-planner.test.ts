// Which source answers a read, without a database (table-driven): one row per rule of
// docs/analytics.md ("When the roll-ups answer", "Roll-ups per indexed attribute / When they
// answer", "Folded trace figures"), each a request shape and the sources its plan tries in order,
// with rows where that rule alone passes a source over (and the rule the planner names for it).
import { expect } from 'chai';
import type { FilterNode } from '../../src/filter/ast.js';
import { resolveField, type ResolvedField } from '../../src/filter/fields.js';
import { validateFilter } from '../../src/filter/validate.js';
import type { IndexedSlot } from '../../src/storage/spans/indexed-slots.js';
import type { PlannedSource, SourceName } from '../../src/storage/spans/read-sources.js';
import { explainRead, SOURCE_RULES, type ReadFacts, type ReadShape } from '../../src/traces/read-planner.js';

const SECOND = 1_000_000_000n;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;
/** On the hour. */
const T0 = 1_763_798_400n * SECOND;

function field(name: string): ResolvedField {
  const resolution = resolveField(name);
  if (!resolution.ok) throw new Error(`not a field: ${name}`);
  return resolution.field;
}

function filter(tree: unknown, traceFields = false): FilterNode {
  const validation = validateFilter(tree, { traceFields });
  if (!validation.ok || validation.filter === null) throw new Error(`not a filter: ${JSON.stringify(tree)}`);
  return validation.filter;
}

const MODEL_SLOT: IndexedSlot = { slot: 1, source: 'span_attributes', key: 'llm.model', generation: 1_700_000_000_000 };
const FACTS: ReadFacts = { readySlots: [MODEL_SLOT], foldMayAnswer: true };

type Analytics = Extract<ReadShape, { kind: 'analytics' }>;

/** Span-grain analytics over three whole hours in hour buckets, grouped by a dimension: the roll-ups answer. */
const SPANS: Analytics = {
  kind: 'analytics',
  grain: 'spans',
  fns: ['count', 'sum'],
  measureFields: ['cost'],
  groupBy: [field('service_name')],
  filter: null,
  startNs: T0,
  endNs: T0 + 3n * HOUR,
  widthNs: HOUR,
};
const spans = (change: Partial<Analytics>): Analytics => ({ ...SPANS, ...change });

/** The same, grouped by the indexed key. */
const BY_SLOT = spans({ groupBy: [field('span_attributes.llm.model')] });
const bySlot = (change: Partial<Analytics>): Analytics => ({ ...BY_SLOT, ...change });

/** Trace-grain analytics without a filter, grouped by nothing, in hour buckets of whole hours: the fold answers. */
const TRACES = spans({ grain: 'traces', fns: ['count', 'p95'], measureFields: ['duration_ms'], groupBy: [] });
const traces = (change: Partial<Analytics>): Analytics => ({ ...TRACES, ...change });

const METRICS: ReadShape = { kind: 'metrics', filter: null, startNs: T0, endNs: T0 + 3n * HOUR };

interface Want {
  /** The sources tried, in order. */
  sources: SourceName[];
  /** Parameters of the first source. */
  first?: Partial<PlannedSource> & Record<string, unknown>;
  /** A source passed over, and the rule it failed. */
  passedOver?: { source: SourceName; rule: string };
}

type Row = [name: string, given: { shape: ReadShape; facts?: ReadFacts }, want: Want];

const ROLLUPS: Row[] = [
  [
    'every rule holds: the hour roll-up, checked against the purge edge, then the spans',
    { shape: SPANS },
    { sources: ['span_rollups', 'spans'], first: { check: 'after_purge_edge', widthS: 3600, bucketsEndNs: T0 + 3n * HOUR } },
  ],
  [
    '1. grain traces: no roll-up (the fold, then the summaries)',
    { shape: spans({ grain: 'traces', fns: ['count'] }) },
    { sources: ['trace_fold', 'trace_summaries'], passedOver: { source: 'span_rollups', rule: 'grain is spans' } },
  ],
  [
    '2. a percentile measure: the spans',
    { shape: spans({ fns: ['count', 'p99'] }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'no measure is a percentile' } },
  ],
  [
    '3. a group_by field that is no dimension (status_message): the spans',
    { shape: spans({ groupBy: [field('service_name'), field('status_message')] }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every group_by field is a dimension' } },
  ],
  [
    '4. one bucket (granularity all) from the hour to past a minute: the minute rows and the spans of the partial last minute',
    { shape: spans({ endNs: T0 + 3n * HOUR + 90n * SECOND, widthNs: 3n * HOUR + 90n * SECOND }) },
    { sources: ['span_rollups', 'spans'], first: { widthS: 60, bucketsEndNs: T0 + 3n * HOUR + MINUTE } },
  ],
  [
    '3. the dimensions keep the roll-up columns of the group_by fields, in order',
    { shape: spans({ groupBy: [field('billing.sku_id'), field('span_kind')] }) },
    { sources: ['span_rollups', 'spans'], first: { dimensions: ['billing_sku_id', 'span_kind'] } },
  ],
  [
    '3. a filter condition on a field that is no dimension (a number): the spans',
    {
      shape: spans({
        filter: filter({
          and: [
            { field: 'service_name', op: 'eq', value: 'a' },
            { field: 'duration_ms', op: 'gt', value: 5 },
          ],
        }),
      }),
    },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every filter condition reads a dimension' } },
  ],
  [
    '3. a filter condition on an attribute: the spans',
    { shape: spans({ filter: filter({ field: 'span_attributes.llm.model', op: 'eq', value: 'a' }) }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every filter condition reads a dimension' } },
  ],
  [
    '3. dimensions only, any operator and nesting: the roll-ups',
    {
      shape: spans({
        filter: filter({
          or: [{ not: { field: 'span_name', op: 'contains', value: 'x' } }, { field: 'billing.region', op: 'regex', value: '^eu' }],
        }),
      }),
    },
    { sources: ['span_rollups', 'spans'] },
  ],
  [
    '4. the window on the hour but minute buckets: the minute roll-up',
    { shape: spans({ widthNs: MINUTE }) },
    { sources: ['span_rollups', 'spans'], first: { widthS: 60, bucketsEndNs: T0 + 3n * HOUR } },
  ],
  [
    '4. the window starting on a minute, not an hour: the minute roll-up',
    { shape: spans({ startNs: T0 + MINUTE, widthNs: 5n * MINUTE }) },
    { sources: ['span_rollups', 'spans'], first: { widthS: 60 } },
  ],
  [
    '4. the window ending inside a minute: the minute roll-up up to the last whole minute, the rest from the spans',
    { shape: spans({ endNs: T0 + 3n * HOUR + 30n * SECOND }) },
    { sources: ['span_rollups', 'spans'], first: { widthS: 60, bucketsEndNs: T0 + 3n * HOUR } },
  ],
  [
    '4. the window starting inside a minute: the spans',
    { shape: spans({ startNs: T0 + SECOND }) },
    {
      sources: ['spans'],
      passedOver: { source: 'span_rollups', rule: 'the window starts on a roll-up boundary and the bucket width is a multiple of it' },
    },
  ],
  [
    '4. no whole minute in the window: the spans',
    { shape: spans({ endNs: T0 + 30n * SECOND, widthNs: MINUTE }) },
    {
      sources: ['spans'],
      passedOver: { source: 'span_rollups', rule: 'the window starts on a roll-up boundary and the bucket width is a multiple of it' },
    },
  ],
  [
    '2. every figure the roll-ups keep (duration_ms, cost, usage.amount): the roll-ups',
    { shape: spans({ fns: ['sum', 'avg', 'max'], measureFields: ['duration_ms', 'cost', 'usage.amount'] }) },
    { sources: ['span_rollups', 'spans'] },
  ],
  ...['tokens.input', 'tokens.output', 'tokens.cache_read', 'tokens.cache_creation', 'tokens.total'].map((tokens): Row => [
    `2. a measure of ${tokens} (no roll-up keeps token counts): the spans`,
    { shape: spans({ fns: ['count', 'sum'], measureFields: ['cost', tokens] }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every measure field is duration_ms, cost or usage.amount' } },
  ]),
  ...[
    'model',
    'provider',
    'cost_source',
    'pricing.model',
    'pricing.provider',
    'pricing.unpriced_reason',
    'pricing.entry_id',
    'pricing.currency',
  ].map((name): Row => [
    `3. grouped by ${name} (no dimension): the spans`,
    { shape: spans({ groupBy: [field('service_name'), field(name)] }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every group_by field is a dimension' } },
  ]),
  ...[
    { field: 'model', op: 'eq', value: 'gpt-4o' },
    { field: 'provider', op: 'exists' },
    { field: 'tokens.input', op: 'gt', value: 100 },
    { field: 'tokens.total', op: 'not_exists' },
    { field: 'cost_source', op: 'eq', value: 'computed' },
    { field: 'pricing.unpriced_reason', op: 'exists' },
    { field: 'pricing.model', op: 'in', value: ['gpt-4o-mini'] },
    { field: 'pricing.provider', op: 'neq', value: 'openai' },
    { field: 'pricing.entry_id', op: 'exists' },
    { field: 'pricing.currency', op: 'eq', value: 'EUR' },
  ].map((condition): Row => [
    `3. a filter on ${condition.field} (no dimension): the spans`,
    { shape: spans({ filter: filter({ and: [{ field: 'service_name', op: 'eq', value: 'a' }, condition] }) }) },
    { sources: ['spans'], passedOver: { source: 'span_rollups', rule: 'every filter condition reads a dimension' } },
  ]),
  [
    '5. the purge edge is checked in the snapshot: the plan names the check and falls back to the spans',
    { shape: spans({ widthNs: 5n * MINUTE }) },
    { sources: ['span_rollups', 'spans'], first: { source: 'span_rollups', check: 'after_purge_edge' } },
  ],
];

const SLOT_ROLLUPS: Row[] = [
  [
    'every rule holds: the hour rows of the slot, checked bucket by bucket, then the spans',
    { shape: BY_SLOT },
    {
      sources: ['slot_rollups', 'spans'],
      first: { check: 'slot_buckets_counted', widthS: 3600, bucketsEndNs: T0 + 3n * HOUR, slot: MODEL_SLOT },
      passedOver: { source: 'span_rollups', rule: 'every group_by field is a dimension' },
    },
  ],
  [
    '1. a percentile measure: the spans',
    { shape: bySlot({ fns: ['p50'] }) },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'no measure is a percentile' } },
  ],
  [
    '1. a measure of a token count: the spans',
    { shape: bySlot({ fns: ['sum'], measureFields: ['tokens.output'] }) },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'every measure field is duration_ms, cost or usage.amount' } },
  ],
  [
    '1. grain traces: no slot roll-up',
    { shape: bySlot({ grain: 'traces' }) },
    { sources: ['trace_summaries'], passedOver: { source: 'slot_rollups', rule: 'grain is spans' } },
  ],
  [
    '2. the key and one more group_by field: the spans',
    { shape: bySlot({ groupBy: [field('span_attributes.llm.model'), field('service_name')] }) },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'group_by is exactly one attribute' } },
  ],
  [
    '2. no slot keeps the key (not indexed, or its backfill not done): the spans',
    { shape: BY_SLOT, facts: { ...FACTS, readySlots: [] } },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'a ready slot keeps the key' } },
  ],
  [
    '2. the same key of the other attribute map: the spans',
    { shape: bySlot({ groupBy: [field('resource_attributes.llm.model')] }) },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'a ready slot keeps the key' } },
  ],
  [
    '3. eq, in, exists under and/or/not on the key: the slot rows',
    {
      shape: bySlot({
        filter: filter({
          or: [
            { field: 'span_attributes.llm.model', op: 'eq', value: 'a' },
            { not: { field: 'span_attributes.llm.model', op: 'in', value: ['b', 'c'] } },
            { and: [{ field: 'span_attributes.llm.model', op: 'not_exists' }] },
          ],
        }),
      }),
    },
    { sources: ['slot_rollups', 'spans'] },
  ],
  [
    '3. a JSON number compares the numeric reading: the spans',
    { shape: bySlot({ filter: filter({ field: 'span_attributes.llm.model', op: 'eq', value: 4 }) }) },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists',
      },
    },
  ],
  [
    '3. a substring of the key: the spans',
    { shape: bySlot({ filter: filter({ field: 'span_attributes.llm.model', op: 'contains', value: 'gpt' }) }) },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists',
      },
    },
  ],
  [
    '3. a condition on the model or a token count beside the key: the spans',
    {
      shape: bySlot({
        filter: filter({
          and: [
            { field: 'span_attributes.llm.model', op: 'eq', value: 'a' },
            {
              or: [
                { field: 'model', op: 'eq', value: 'a' },
                { field: 'tokens.cache_read', op: 'gte', value: 1 },
              ],
            },
          ],
        }),
      }),
    },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists',
      },
    },
  ],
  ...[
    { field: 'cost_source', op: 'eq', value: 'computed' },
    { field: 'pricing.unpriced_reason', op: 'exists' },
    { field: 'pricing.currency', op: 'neq', value: 'USD' },
  ].map((condition): Row => [
    `3. a condition on ${condition.field} beside the key: the spans`,
    { shape: bySlot({ filter: filter({ and: [{ field: 'span_attributes.llm.model', op: 'eq', value: 'a' }, condition] }) }) },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists',
      },
    },
  ]),
  ...['cost_source', 'pricing.model', 'pricing.entry_id'].map((name): Row => [
    `2. the key and ${name} as group_by fields: the spans`,
    { shape: bySlot({ groupBy: [field('span_attributes.llm.model'), field(name)] }) },
    { sources: ['spans'], passedOver: { source: 'slot_rollups', rule: 'group_by is exactly one attribute' } },
  ]),
  [
    '3. a condition on another field: the spans',
    { shape: bySlot({ filter: filter({ field: 'service_name', op: 'eq', value: 'checkout' }) }) },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists',
      },
    },
  ],
  [
    '4. whole hours in minute buckets: the minute rows',
    { shape: bySlot({ widthNs: MINUTE }) },
    { sources: ['slot_rollups', 'spans'], first: { widthS: 60, bucketsEndNs: T0 + 3n * HOUR } },
  ],
  [
    '4. the window ending inside a minute (unlike span_rollups): the spans',
    { shape: bySlot({ endNs: T0 + 3n * HOUR + 30n * SECOND }) },
    {
      sources: ['spans'],
      passedOver: {
        source: 'slot_rollups',
        rule: 'the window starts and ends on a roll-up boundary and the bucket width is a multiple of it',
      },
    },
  ],
  [
    '5. the purge edge and the buckets are checked against the stored rows in the snapshot: the plan names the check and falls back to the spans',
    { shape: bySlot({ startNs: T0 + MINUTE, endNs: T0 + 2n * HOUR, widthNs: 5n * MINUTE }) },
    { sources: ['slot_rollups', 'spans'], first: { source: 'slot_rollups', check: 'slot_buckets_counted', widthS: 60 } },
  ],
];

const FOLD: Row[] = [
  [
    'trace metrics without a filter: the fold over the whole hours, checked for pending summaries, then the summaries',
    { shape: METRICS },
    {
      sources: ['trace_fold', 'trace_summaries'],
      first: {
        check: 'pending_within_limit',
        startHour: T0 / HOUR,
        firstHour: T0 / HOUR,
        endHour: T0 / HOUR + 3n,
        widthHours: null,
        edges: [],
      },
    },
  ],
  [
    'trace metrics over a window off the hour: its partial hours are edges',
    { shape: { ...METRICS, startNs: T0 + MINUTE, endNs: T0 + 2n * HOUR + SECOND } },
    {
      sources: ['trace_fold', 'trace_summaries'],
      first: {
        startHour: T0 / HOUR,
        firstHour: T0 / HOUR + 1n,
        endHour: T0 / HOUR + 2n,
        edges: [
          [T0 + MINUTE, T0 + HOUR],
          [T0 + 2n * HOUR, T0 + 2n * HOUR + SECOND],
        ],
      },
    },
  ],
  [
    'trace metrics with a filter: the summaries',
    { shape: { ...METRICS, filter: filter({ field: 'trace.error_count', op: 'gt', value: 0 }, true) } },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: 'no filter' } },
  ],
  [
    'trace metrics over a window holding no whole hour: the summaries',
    { shape: { ...METRICS, startNs: T0 + MINUTE, endNs: T0 + HOUR + MINUTE } },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: 'the window holds a whole hour' } },
  ],
  [
    'trace-grain analytics grouped by nothing, hour buckets from the hour: the fold',
    { shape: TRACES },
    { sources: ['trace_fold', 'trace_summaries'], first: { widthHours: 1n, firstHour: T0 / HOUR, endHour: T0 / HOUR + 3n } },
  ],
  [
    "trace-grain analytics grouped by the root's service_name, day buckets: the fold",
    { shape: traces({ groupBy: [field('service_name')], endNs: T0 + 48n * HOUR, widthNs: 24n * HOUR }) },
    { sources: ['trace_fold', 'trace_summaries'], first: { widthHours: 24n } },
  ],
  [
    'trace-grain analytics in one bucket (granularity all) off the hour: the fold over the whole hours, as trace metrics read it',
    { shape: traces({ startNs: T0 + MINUTE, endNs: T0 + 3n * HOUR + MINUTE, widthNs: 3n * HOUR }) },
    { sources: ['trace_fold', 'trace_summaries'], first: { widthHours: null, firstHour: T0 / HOUR + 1n, endHour: T0 / HOUR + 3n } },
  ],
  [
    'trace-grain analytics grouped by span_name: the summaries',
    { shape: traces({ groupBy: [field('span_name')] }) },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: "grouped by nothing or by the root's service_name" } },
  ],
  [
    'trace-grain analytics with a filter: the summaries',
    { shape: traces({ filter: filter({ field: 'service_name', op: 'eq', value: 'checkout' }) }) },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: 'no filter' } },
  ],
  [
    'trace-grain analytics in minute buckets: the summaries',
    { shape: traces({ widthNs: MINUTE }) },
    {
      sources: ['trace_summaries'],
      passedOver: { source: 'trace_fold', rule: 'one bucket, or buckets of whole hours from a window starting on an hour' },
    },
  ],
  [
    'trace-grain analytics from a window starting off the hour: the summaries',
    { shape: traces({ startNs: T0 + MINUTE }) },
    {
      sources: ['trace_summaries'],
      passedOver: { source: 'trace_fold', rule: 'one bucket, or buckets of whole hours from a window starting on an hour' },
    },
  ],
  [
    'span-grain analytics: never the fold',
    { shape: spans({ groupBy: [] }) },
    { sources: ['span_rollups', 'spans'], passedOver: { source: 'trace_fold', rule: 'grain is traces' } },
  ],
  [
    'a span store without a fold: the summaries',
    { shape: METRICS, facts: { ...FACTS, foldMayAnswer: false } },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: 'the fold may answer' } },
  ],
  [
    'a window outside the stored times: the summaries',
    { shape: { ...METRICS, endNs: 2n ** 63n } },
    { sources: ['trace_summaries'], passedOver: { source: 'trace_fold', rule: 'a window inside the stored times' } },
  ],
];

const PAGES: Row[] = [['span pages: the spans, nothing else', { shape: { kind: 'span_pages' } }, { sources: ['spans'] }]];

describe('read planner: which source answers', () => {
  for (const [group, rows] of [
    ['When the roll-ups answer', ROLLUPS],
    ['Roll-ups per indexed attribute', SLOT_ROLLUPS],
    ['Folded trace figures', FOLD],
    ['Span pages', PAGES],
  ] as const) {
    describe(group, () => {
      for (const [name, given, want] of rows) {
        it(name, () => {
          const plan = explainRead(given.shape, given.facts ?? FACTS);
          expect(plan.sources.map((planned) => planned.source)).to.deep.equal(want.sources);
          if (want.first) expect(plan.sources[0]).to.deep.include(want.first);
          if (want.passedOver) expect(plan.passedOver).to.deep.include(want.passedOver);
          // Each planned source carries the check its rule declares; the last one is exact as it is.
          for (const planned of plan.sources)
            expect(planned.check).to.equal(SOURCE_RULES.find((rule) => rule.source === planned.source)?.check);
          expect(plan.sources[plan.sources.length - 1]?.check).to.equal('none');
        });
      }
    });
  }
});
