// The reads of the live endpoints (GET /traces/live and its stream), in receive order: by the
// receive sequence `seq`, which grows with every stored span of an application.
import type { Knex } from 'knex';
import { bigintAsText, integerBindings } from '../../database.js';
import { afterKey, type SortColumn } from '../../keyset.js';
import { lookAheadWindow, pageWindow, readPage, withNextKey, type ListPage, type ListRequest } from '../../paging.js';
import { dialectFor } from '../../sql/index.js';
import { asNumber, normaliseSpan, selectSpanColumns, type StoredSpan } from '../stored-span.js';
import { betweenNanos } from '../time-bounds.js';

/** The receive sequences low..high, inclusive. */
export interface SeqRange {
  low: bigint;
  high: bigint;
}

/** The application's spans in an optional `[startNs, endNs)` window of start times. */
export interface RecentSpansQuery {
  applicationId: string;
  startNs: bigint | undefined;
  endNs: bigint | undefined;
}

function isWindowed(query: RecentSpansQuery): boolean {
  return query.startNs !== undefined || query.endNs !== undefined;
}

/** The application's spans of the window, read from `from` (aliased `s`). */
function recentBase(knex: Knex, query: RecentSpansQuery, from: string | Knex.Raw = 'spans as s'): Knex.QueryBuilder {
  return knex
    .from(from)
    .where('s.application_id', query.applicationId)
    .modify(betweenNanos(dialectFor(knex), 's.start_time_unix_nano', query.startNs, query.endNs));
}

/** Without a window: the stored spans, newest received first, along the (application_id, seq) index read backwards. */
export function newestSpansQuery(knex: Knex, query: RecentSpansQuery): Knex.QueryBuilder {
  return selectSpanColumns(knex, recentBase(knex, query), 's').orderBy('s.seq', 'desc');
}

/**
 * With a window: the receive sequences of its spans, newest received first. Walking the receive
 * order from the newest span can pass every span received after the window first; the window's
 * own (start time) index bounds the work by its size.
 */
export function windowSeqsQuery(knex: Knex, query: RecentSpansQuery): Knex.QueryBuilder {
  return recentBase(knex, query, knex.raw(dialectFor(knex).tableThroughIndex('spans', 's', 'spans_newest_first')))
    .select({ seq: 's.seq' })
    .orderBy('s.seq', 'desc');
}

/**
 * The total of recentSpans. Without a window the sum of the trace summaries' span counts, which
 * the span writer keeps in the same transactions as the spans: the same number, from a fraction
 * of the rows (one per trace), where counting a million spans took 0.3 to 0.7 s.
 */
export function recentTotalQuery(knex: Knex, query: RecentSpansQuery): Knex.QueryBuilder {
  return isWindowed(query)
    ? recentBase(knex, query).count({ total: '*' })
    : knex('traces').where('application_id', query.applicationId).sum({ total: 'spans_count' });
}

/** The live list's order as a keyset: receive sequence descending. */
export const LIVE_ORDER: SortColumn[] = [{ column: 's.seq', order: 'desc', integer: true }];

/**
 * GET /traces/live: the application's spans by receive sequence, newest first; read after
 * `query.after` when a cursor gives it: a bound on seq, one more condition on the same read as
 * page 1 (spans_by_receipt without a window, spans_newest_first with one).
 */
export async function recentSpans(knex: Knex, query: RecentSpansQuery & ListRequest): Promise<ListPage<StoredSpan>> {
  const { after } = query;
  const resume = (builder: Knex.QueryBuilder) => (after ? builder.modify(afterKey(dialectFor(knex), LIVE_ORDER, after)) : builder);
  const window = lookAheadWindow(after ? { limit: query.limit, offset: 0 } : pageWindow(query.page, query.limit));
  const page = async (): Promise<StoredSpan[]> => {
    if (!isWindowed(query)) {
      const rows = await readPage<Record<string, unknown>>(resume(newestSpansQuery(knex, query)), window);
      return rows.map(normaliseSpan);
    }
    const keys = await readPage<{ seq: unknown }>(resume(windowSeqsQuery(knex, query)), window);
    const bySeq = new Map(
      (
        await spansBySeq(
          knex,
          query.applicationId,
          keys.map((key) => String(key.seq)),
        )
      ).map((span) => [span.seq, span]),
    );
    return keys.map((key) => bySeq.get(String(key.seq))).filter((span): span is StoredSpan => span !== undefined);
  };
  const [rows, counted] = await Promise.all([page(), recentTotalQuery(knex, query) as Promise<Array<{ total: unknown }>>]);
  const { items, nextKey } = withNextKey(rows, query.limit, (span) => [span.seq]);
  return { items, total: asNumber(counted[0]?.total ?? 0), nextKey };
}

/** The highest receive sequence of the application's stored spans, as text (NULL when none). */
export function latestSeqQuery(knex: Knex, applicationId: string): Knex.QueryBuilder {
  return knex('spans')
    .where('application_id', applicationId)
    .select({ latest: bigintAsText(knex, 'MAX(seq)') });
}

/** The highest receive sequence of the application's stored spans ('0' when none). */
export async function latestSeq(knex: Knex, applicationId: string): Promise<string> {
  const [row] = (await latestSeqQuery(knex, applicationId)) as Array<{ latest: unknown }>;
  return row?.latest === null || row?.latest === undefined ? '0' : String(row.latest);
}

/** Receive sequences (as text) of the application in `(after, upTo]` (upTo omitted: no upper bound), ascending, at most `limit`. */
export function seqsBetweenQuery(
  knex: Knex,
  applicationId: string,
  after: string,
  upTo: string | undefined,
  limit: number,
): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  return knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .modify((query) => {
      if (upTo !== undefined) query.whereRaw(`seq <= ${dialect.exactInteger}`, [upTo]);
    })
    .select({ seq: bigintAsText(knex, 'seq') })
    .orderBy('seq')
    .limit(limit);
}

/** Receive sequences of the application in `(after, upTo]` (upTo omitted: no upper bound), ascending. */
export async function seqsBetween(
  knex: Knex,
  applicationId: string,
  after: string,
  upTo: string | undefined,
  limit: number,
): Promise<string[]> {
  const rows: Array<{ seq: unknown }> = await seqsBetweenQuery(knex, applicationId, after, upTo, limit);
  return rows.map((row) => String(row.seq));
}

/** Counts the application's spans with a receive sequence in `(after, upTo]`, as `total`. */
export function countSeqsBetweenQuery(knex: Knex, applicationId: string, after: string, upTo: string): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  return knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .whereRaw(`seq <= ${dialect.exactInteger}`, [upTo])
    .count({ total: '*' });
}

/** How many of the application's spans have a receive sequence in `(after, upTo]`. */
export async function countSeqsBetween(knex: Knex, applicationId: string, after: string, upTo: string): Promise<number> {
  const [row] = (await countSeqsBetweenQuery(knex, applicationId, after, upTo)) as Array<{ total: unknown }>;
  return asNumber(row?.total ?? 0);
}

/** The application's stored spans with these receive sequences (at least one), ascending. */
export function spansBySeqQuery(knex: Knex, applicationId: string, seqs: string[]): Knex.QueryBuilder {
  return selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereIn('s.seq', integerBindings(seqs))
    .orderBy('s.seq');
}

/** The application's spans with these receive sequences, ascending. */
export async function spansBySeq(knex: Knex, applicationId: string, seqs: string[]): Promise<StoredSpan[]> {
  if (seqs.length === 0) return [];
  const rows: Array<Record<string, unknown>> = await spansBySeqQuery(knex, applicationId, seqs);
  return rows.map(normaliseSpan);
}

/** The application's stored spans with a receive sequence above `after`, ascending, at most `limit`. */
export function spansAfterQuery(knex: Knex, applicationId: string, after: string, limit: number): Knex.QueryBuilder {
  return selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereRaw(`s.seq > ${dialectFor(knex).exactInteger}`, [after])
    .orderBy('s.seq')
    .limit(limit);
}

/** The application's spans with a receive sequence above `after`, ascending, at most `limit`. */
export async function spansAfter(knex: Knex, applicationId: string, after: string, limit: number): Promise<StoredSpan[]> {
  const rows: Array<Record<string, unknown>> = await spansAfterQuery(knex, applicationId, after, limit);
  return rows.map(normaliseSpan);
}

/**
 * The gaps of the other applications' receive sequences in `(after, upTo]`: each row is a
 * sequence held by another application that follows a gap (`prev_seq` NULL for the first) or
 * ends the run (`last` 1). Read along seq: SQLite's rowid; on MariaDB the unique index on seq
 * (which holds application_id), forced, as the planner took the primary key for `<>` and read
 * every other application's spans.
 */
export function othersGapsQuery(knex: Knex, applicationId: string, after: string, upTo: string): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const spans = dialect.name === 'mysql' ? knex.raw(dialect.tableThroughIndex('spans', 's', 'spans_seq')) : 'spans as s';
  const held = knex
    .from(spans)
    .select('s.seq', knex.raw('LAG(s.seq) OVER (ORDER BY s.seq) AS prev_seq'), knex.raw('LEAD(s.seq) OVER (ORDER BY s.seq) AS next_seq'))
    .where('s.application_id', '<>', applicationId)
    .whereRaw(`s.seq > ${dialect.exactInteger}`, [after])
    .whereRaw(`s.seq <= ${dialect.exactInteger}`, [upTo]);
  return knex
    .from(held.as('g'))
    .select({
      seq: bigintAsText(knex, 'g.seq'),
      prev: bigintAsText(knex, 'g.prev_seq'),
      last: knex.raw('CASE WHEN g.next_seq IS NULL THEN 1 ELSE 0 END'),
    })
    .whereRaw('g.prev_seq IS NULL OR g.seq - g.prev_seq > 1 OR g.next_seq IS NULL')
    .orderBy('g.seq');
}

/** The sequences in `(after, upTo]` that no other application's stored span holds, as ascending ranges. */
export async function unclaimedBetween(knex: Knex, applicationId: string, after: string, upTo: string): Promise<SeqRange[]> {
  const rows: Array<{ seq: unknown; prev: unknown; last: unknown }> = await othersGapsQuery(knex, applicationId, after, upTo);
  const start = BigInt(after);
  const end = BigInt(upTo);
  if (rows.length === 0) return start < end ? [{ low: start + 1n, high: end }] : [];
  const ranges: SeqRange[] = [];
  for (const row of rows) {
    const seq = BigInt(String(row.seq));
    const below = row.prev === null || row.prev === undefined ? start : BigInt(String(row.prev));
    if (seq - below > 1n) ranges.push({ low: below + 1n, high: seq - 1n });
    if (Number(row.last) === 1 && seq < end) ranges.push({ low: seq + 1n, high: end });
  }
  return ranges;
}

/** The application's stored spans with a receive sequence in one of `ranges` (at least one), ascending. */
export function spansInRangesQuery(knex: Knex, applicationId: string, ranges: SeqRange[]): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  return selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .where((query) => {
      for (const range of ranges)
        query.orWhereRaw(`s.seq BETWEEN ${dialect.exactInteger} AND ${dialect.exactInteger}`, [
          range.low.toString(),
          range.high.toString(),
        ]);
    })
    .orderBy('s.seq');
}

/** The application's spans with a receive sequence in one of `ranges`, ascending. */
export async function spansInRanges(knex: Knex, applicationId: string, ranges: SeqRange[]): Promise<StoredSpan[]> {
  if (ranges.length === 0) return [];
  const rows: Array<Record<string, unknown>> = await spansInRangesQuery(knex, applicationId, ranges);
  return rows.map(normaliseSpan);
}
