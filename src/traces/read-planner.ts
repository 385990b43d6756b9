// Which source answers a read (docs/analytics.md): each source declares here, in one place, when
// it is eligible and which exactness check a read must run in its snapshot before trusting it;
// the planner lists the eligible ones cheapest first. Pure: the request's shape and the facts
// (ready slots, whether the fold may answer) come in as data, the plan goes out as data
// (src/storage/spans/read-sources.ts), and storage executes it.
import type { FilterNode } from '../filter/ast.js';
import type { ResolvedField } from '../filter/fields.js';
import {
  targetOfResolved,
  type IndexedSlot,
  HOUR_NS,
  hourOf,
  ROLLUP_DIMENSIONS,
  ROLLUP_MEASURE_FIELDS,
  ROLLUP_WIDTHS_S,
  type ExactnessCheck,
  type PlannedSource,
  type ReadPlan,
  type RollupDimension,
  type SourceName,
  MAX_STORED_INTEGER,
  MIN_STORED_INTEGER,
} from '../storage/spans/span-store.js';

/** What a read asks for, with its fields already resolved. */
export type ReadShape =
  /** POST /engine/query: a page of matching spans. */
  | { kind: 'span_pages' }
  /** POST /engine/analytics. */
  | {
      kind: 'analytics';
      grain: 'spans' | 'traces';
      /** The measures' functions (count, sum, avg, min, max, p50, p90, p95, p99). */
      fns: readonly string[];
      /** The fields the measures read (`count` reads none). */
      measureFields: readonly string[];
      groupBy: readonly ResolvedField[];
      filter: FilterNode | null;
      startNs: bigint;
      endNs: bigint;
      /** The bucket width (`endNs - startNs` or more: one bucket, the whole window). */
      widthNs: bigint;
    }
  /** POST /engine/metrics: one set of statistics over the window's traces. */
  | { kind: 'metrics'; filter: FilterNode | null; startNs: bigint; endNs: bigint };

/** What the planner knows beyond the request. */
export interface ReadFacts {
  /** The application's indexed attribute slots whose backfill is done. */
  readySlots: readonly IndexedSlot[];
  /** Whether the folded trace figures may answer (a span store without a fold says false). */
  foldMayAnswer: boolean;
}

/** Why a source was passed over: the rule of docs/analytics.md that it failed. */
export type Ineligible = { eligible: false; rule: string };
type Eligibility = PlannedSource | Ineligible;

interface SourceRule {
  source: SourceName;
  check: ExactnessCheck;
  eligible(shape: ReadShape, facts: ReadFacts): Eligibility;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const PERCENTILES = new Set(['p50', 'p90', 'p95', 'p99']);
const no = (rule: string): Ineligible => ({ eligible: false, rule });

function isDimension(column: string): column is RollupDimension {
  return (ROLLUP_DIMENSIONS as readonly string[]).includes(column);
}

/** The roll-up column a field reads, or undefined when the roll-ups do not keep it. */
function dimensionOf(field: ResolvedField): RollupDimension | undefined {
  const target = targetOfResolved(field);
  return target.kind === 'text' && isDimension(target.column) ? target.column : undefined;
}

function everyCondition(node: FilterNode, test: (condition: Extract<FilterNode, { kind: 'condition' }>) => boolean): boolean {
  if (node.kind === 'condition') return test(node);
  if (node.kind === 'not') return everyCondition(node.child, test);
  return node.children.every((child) => everyCondition(child, test));
}

/**
 * Whether slot_rollups rows answer a condition exactly as the spans would: it reads the slot's key
 * and compares the text form, which is the kept string (a JSON number compares the numeric
 * reading, which the rows do not keep; substrings and patterns need the value itself).
 */
function slotAnswers(condition: Extract<FilterNode, { kind: 'condition' }>, slot: IndexedSlot): boolean {
  const field = condition.resolved;
  if (field.kind !== 'attribute' || field.source !== slot.source || field.key !== slot.key) return false;
  switch (condition.op) {
    case 'exists':
    case 'not_exists':
      return true;
    case 'eq':
    case 'neq':
      return !condition.numberGiven;
    case 'in':
    case 'not_in':
      return condition.numbers.length === 0 && condition.values.length > 0;
    default:
      return false;
  }
}

type Analytics = Extract<ReadShape, { kind: 'analytics' }>;

/**
 * Whether every time in the window falls in bucket 0: then bucket edges need not line up with a
 * source's own (granularity `all`), only the window's start and end do.
 */
function oneBucket(shape: Analytics): boolean {
  return shape.widthNs >= shape.endNs - shape.startNs;
}

/** The rules every roll-up shares: span grain, no percentile, only figures the roll-ups keep. */
function rollupShape(shape: ReadShape): Analytics | Ineligible {
  if (shape.kind !== 'analytics') return no('analytics only');
  if (shape.grain !== 'spans') return no('grain is spans');
  if (shape.fns.some((fn) => PERCENTILES.has(fn))) return no('no measure is a percentile');
  if (!shape.measureFields.every((field) => (ROLLUP_MEASURE_FIELDS as readonly string[]).includes(field)))
    return no('every measure field is duration_ms, cost or usage.amount');
  return shape;
}

/**
 * Each source, cheapest first. The roll-ups read rows per bucket and key, not per span; span_rollups
 * before slot_rollups because its check is one primary-key read where slot_rollups' also counts
 * two tables' buckets (no request is eligible for both: one groups by dimensions, the other by one attribute).
 * The fold reads histogram rows per hour, not one row per trace. The summaries hold one row per
 * trace, the spans one per span: these two are exact as they are, the last resort of their grain.
 */
export const SOURCE_RULES: readonly SourceRule[] = [
  {
    source: 'span_rollups',
    check: 'after_purge_edge',
    eligible(shape) {
      const read = rollupShape(shape);
      if ('eligible' in read) return read;
      const dimensions = read.groupBy.map(dimensionOf);
      if (!dimensions.every((dimension) => dimension !== undefined)) return no('every group_by field is a dimension');
      if (read.filter !== null && !everyCondition(read.filter, (condition) => dimensionOf(condition.resolved) !== undefined))
        return no('every filter condition reads a dimension');
      for (const widthS of ROLLUP_WIDTHS_S) {
        const width = BigInt(widthS) * NANOS_PER_SECOND;
        // One bucket (granularity `all`) ending off the minute is not a whole number of minutes long.
        if (read.startNs < 0n || read.startNs % width !== 0n || (read.widthNs % width !== 0n && !oneBucket(read))) continue;
        const bucketsEndNs = read.endNs - (read.endNs % width);
        // Only the minute roll-up takes a partial last bucket from the spans: under a minute of them.
        if (bucketsEndNs !== read.endNs && widthS !== ROLLUP_WIDTHS_S[ROLLUP_WIDTHS_S.length - 1]) continue;
        if (bucketsEndNs <= read.startNs) continue;
        return { source: 'span_rollups', check: 'after_purge_edge', widthS, bucketsEndNs, dimensions };
      }
      return no('the window starts on a roll-up boundary and the bucket width is a multiple of it');
    },
  },
  {
    source: 'slot_rollups',
    check: 'slot_buckets_counted',
    eligible(shape, facts) {
      const read = rollupShape(shape);
      if ('eligible' in read) return read;
      const [field] = read.groupBy;
      if (read.groupBy.length !== 1 || field?.kind !== 'attribute') return no('group_by is exactly one attribute');
      const slot = facts.readySlots.find((candidate) => candidate.source === field.source && candidate.key === field.key);
      if (!slot) return no('a ready slot keeps the key');
      if (read.filter !== null && !everyCondition(read.filter, (condition) => slotAnswers(condition, slot)))
        return no('the filter reads only that key, with eq, neq, in, not_in (strings), exists, not_exists');
      for (const widthS of ROLLUP_WIDTHS_S) {
        const width = BigInt(widthS) * NANOS_PER_SECOND;
        if (read.startNs < 0n || read.startNs % width !== 0n || read.endNs % width !== 0n || read.widthNs % width !== 0n) continue;
        if (read.endNs <= read.startNs) continue;
        return { source: 'slot_rollups', check: 'slot_buckets_counted', widthS, bucketsEndNs: read.endNs, slot };
      }
      return no('the window starts and ends on a roll-up boundary and the bucket width is a multiple of it');
    },
  },
  {
    source: 'trace_fold',
    check: 'pending_within_limit',
    eligible(shape, facts) {
      if (shape.kind === 'span_pages') return no('trace metrics or analytics only');
      if (!facts.foldMayAnswer) return no('the fold may answer');
      if (shape.filter !== null) return no('no filter');
      let widthNs: bigint | null = null;
      if (shape.kind === 'analytics') {
        if (shape.grain !== 'traces') return no('grain is traces');
        const [field] = shape.groupBy;
        if (shape.groupBy.length > 1 || (field !== undefined && !(field.kind === 'text' && field.name === 'service_name')))
          return no("grouped by nothing or by the root's service_name");
        // One bucket reads like trace metrics: whole hours from the fold, the edges from the summaries.
        if (!oneBucket(shape)) {
          if (shape.startNs % HOUR_NS !== 0n || shape.widthNs % HOUR_NS !== 0n)
            return no('one bucket, or buckets of whole hours from a window starting on an hour');
          widthNs = shape.widthNs;
        }
      }
      if (shape.startNs <= MIN_STORED_INTEGER || shape.endNs > MAX_STORED_INTEGER || shape.startNs >= shape.endNs)
        return no('a window inside the stored times');
      const startHour = hourOf(shape.startNs);
      const firstHour = startHour * HOUR_NS === shape.startNs ? startHour : startHour + 1n;
      const endHour = hourOf(shape.endNs);
      if (firstHour >= endHour) return no('the window holds a whole hour');
      const edges: Array<[bigint, bigint]> = [];
      if (firstHour * HOUR_NS > shape.startNs) edges.push([shape.startNs, firstHour * HOUR_NS]);
      if (endHour * HOUR_NS < shape.endNs) edges.push([endHour * HOUR_NS, shape.endNs]);
      const widthHours = widthNs === null ? null : widthNs / HOUR_NS;
      return { source: 'trace_fold', check: 'pending_within_limit', startHour, firstHour, endHour, widthHours, edges };
    },
  },
  {
    source: 'trace_summaries',
    check: 'none',
    eligible(shape) {
      if (shape.kind === 'metrics' || (shape.kind === 'analytics' && shape.grain === 'traces'))
        return { source: 'trace_summaries', check: 'none' };
      return no('trace metrics or trace-grain analytics');
    },
  },
  {
    source: 'spans',
    check: 'none',
    eligible(shape) {
      if (shape.kind === 'span_pages' || (shape.kind === 'analytics' && shape.grain === 'spans')) return { source: 'spans', check: 'none' };
      return no('span pages or span-grain analytics');
    },
  },
];

/** The plan of a read, and why each source left out was. */
export function explainRead(shape: ReadShape, facts: ReadFacts): ReadPlan & { passedOver: Array<{ source: SourceName; rule: string }> } {
  const sources: PlannedSource[] = [];
  const passedOver: Array<{ source: SourceName; rule: string }> = [];
  for (const rule of SOURCE_RULES) {
    const found = rule.eligible(shape, facts);
    if ('eligible' in found) passedOver.push({ source: rule.source, rule: found.rule });
    else sources.push(found);
  }
  return { sources, passedOver };
}

/** The sources a read tries, cheapest eligible first, each with the check it must pass; the last one is exact as it is. */
export function planRead(shape: ReadShape, facts: ReadFacts): ReadPlan {
  return { sources: explainRead(shape, facts).sources };
}
