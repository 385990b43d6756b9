// The reads of the live endpoints (GET /traces/live and its stream), in receive order: by the
// receive sequence `seq`, which grows with every stored span of an application.
import type { Knex } from 'knex';
import { bigintAsText } from '../database.js';
import { pageWindow, readPage, type Page, type PageRequest } from '../paging.js';
import { dialectFor } from '../sql/index.js';
import { asNumber, normaliseSpan, selectSpanColumns, type StoredSpan } from './stored-span.js';
import { betweenNanos } from './time-bounds.js';

/** GET /traces/live: the application's spans by receive sequence, newest first. */
export async function recentSpans(
  knex: Knex,
  query: { applicationId: string; startNs: bigint | undefined; endNs: bigint | undefined } & PageRequest,
): Promise<Page<StoredSpan>> {
  const dialect = dialectFor(knex);
  const windowed = query.startNs !== undefined || query.endNs !== undefined;
  const base = (from: string | Knex.Raw = 'spans as s') =>
    knex.from(from).where('s.application_id', query.applicationId).modify(betweenNanos(dialect, 's.start_time_unix_nano', query.startNs, query.endNs));
  const window = pageWindow(query.page, query.limit);
  const page = async (): Promise<StoredSpan[]> => {
    if (!windowed) {
      // The (application_id, seq) index read backwards: the page, and nothing more.
      const rows = await readPage<Record<string, unknown>>(selectSpanColumns(knex, base(), 's').orderBy('s.seq', 'desc'), window);
      return rows.map(normaliseSpan);
    }
    // With a window, walking the receive order from the newest span can pass every span received
    // after the window first; the window's own (start time) index bounds the work by its size.
    const keys = await readPage<{ seq: unknown }>(
      base(knex.raw(dialect.tableThroughIndex('spans', 's', 'spans_newest_first')))
        .select({ seq: 's.seq' })
        .orderBy('s.seq', 'desc'),
      window,
    );
    const bySeq = new Map((await spansBySeq(knex, query.applicationId, keys.map((key) => String(key.seq)))).map((span) => [span.seq, span]));
    return keys.map((key) => bySeq.get(String(key.seq))).filter((span): span is StoredSpan => span !== undefined);
  };
  // Without a window the total is the sum of the trace summaries' span counts, which the span
  // writer keeps in the same transactions as the spans: the same number, from a fraction of the
  // rows (one per trace), where counting a million spans took 0.3 to 0.7 s.
  const total = windowed ? base().count({ total: '*' }) : knex('traces').where('application_id', query.applicationId).sum({ total: 'spans_count' });
  const [items, counted] = await Promise.all([page(), total as Promise<Array<{ total: unknown }>>]);
  return { items, total: asNumber(counted[0]?.total ?? 0) };
}

/** The highest receive sequence of the application's stored spans ('0' when none). */
export async function latestSeq(knex: Knex, applicationId: string): Promise<string> {
  const [row] = (await knex('spans').where('application_id', applicationId).select({ latest: bigintAsText(knex, 'MAX(seq)') })) as Array<{ latest: unknown }>;
  return row?.latest === null || row?.latest === undefined ? '0' : String(row.latest);
}

/** Receive sequences of the application in `(after, upTo]` (upTo omitted: no upper bound), ascending. */
export async function seqsBetween(knex: Knex, applicationId: string, after: string, upTo: string | undefined, limit: number): Promise<string[]> {
  const dialect = dialectFor(knex);
  const rows: Array<{ seq: unknown }> = await knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .modify((query) => {
      if (upTo !== undefined) query.whereRaw(`seq <= ${dialect.exactInteger}`, [upTo]);
    })
    .select({ seq: bigintAsText(knex, 'seq') })
    .orderBy('seq')
    .limit(limit);
  return rows.map((row) => String(row.seq));
}

/** How many of the application's spans have a receive sequence in `(after, upTo]`. */
export async function countSeqsBetween(knex: Knex, applicationId: string, after: string, upTo: string): Promise<number> {
  const dialect = dialectFor(knex);
  const [row] = (await knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .whereRaw(`seq <= ${dialect.exactInteger}`, [upTo])
    .count({ total: '*' })) as Array<{ total: unknown }>;
  return asNumber(row?.total ?? 0);
}

/** The application's spans with these receive sequences, ascending. */
export async function spansBySeq(knex: Knex, applicationId: string, seqs: string[]): Promise<StoredSpan[]> {
  if (seqs.length === 0) return [];
  const rows: Array<Record<string, unknown>> = await selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereIn('s.seq', seqs.map(Number))
    .orderBy('s.seq');
  return rows.map(normaliseSpan);
}

/** The application's spans with a receive sequence above `after`, ascending, at most `limit`. */
export async function spansAfter(knex: Knex, applicationId: string, after: string, limit: number): Promise<StoredSpan[]> {
  const dialect = dialectFor(knex);
  const rows: Array<Record<string, unknown>> = await selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereRaw(`s.seq > ${dialect.exactInteger}`, [after])
    .orderBy('s.seq')
    .limit(limit);
  return rows.map(normaliseSpan);
}
