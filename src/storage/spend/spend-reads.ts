// The spend of some applications over a window and the window just before it, per value of one
// key, and on request per value and UTC day of the window (README.md beside this file, "Reads"):
// statements over `spend_rollups` (the windows' whole UTC days from the day rows, their ragged
// hours from the hour rows: spend-ranges.ts), or over the spans for an application whose purge
// edge lies above the previous window's start (its rows there may have lost spans: they are
// answered from what is left of the spans, exactly, as analytics' rule 5). Both sources give the
// same rows: each span in the shape of a roll-up row, summed the same way. Grouped by an indexed
// attribute, the rows are those of `spend_slot_rollups` (spend-slot-rollups.ts) under each
// application's slot and generation, checked in the read's snapshot to count as many spans as
// spend_rollups' over the same ranges (else that application is read from its spans).
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import type { IndexedSlot } from '../spans/indexed-slots.js';
import { atOrAfterEdge, purgeEdgeOf } from '../spans/purge-edge.js';
import { VALUE_KEPT, VALUE_UNKEPT } from '../spans/rollups/slot-rollups.js';
import { DAY_NS, dayStartNs, spendRanges, type SpendRange } from './spend-ranges.js';
import { SPEND_CURRENCY_SQL, SPEND_DIMENSIONS, SPEND_ROLLUPS, TOKEN_COLUMNS, type SpendDimension } from './spend-rollups.js';
import { SPEND_SLOT_ROLLUPS, spendSlotKeys } from './spend-slot-rollups.js';

/** The key a summary groups by: a spend dimension, or the application. */
export type SpendKey = SpendDimension | 'application_id';

/**
 * An indexed attribute as a key: per application of the window, the ready slot that keeps it
 * (applications may keep one key in different slots, under their own generations).
 */
export interface SlotKey {
  slots: ReadonlyMap<string, IndexedSlot>;
}

export interface SpendWindow {
  applicationIds: readonly string[];
  /** The window [startNs, endNs) and the previous one [previousStartNs, startNs), nanoseconds on whole hours. */
  previousStartNs: bigint;
  startNs: bigint;
  endNs: bigint;
  /** ISO 4217: the spend counted; the other currencies' are read apart (otherCurrencies). */
  currency: string;
  /** A column, or an indexed attribute (then every application of the window has a slot in `slots`). */
  key: SpendKey | SlotKey;
  /** Also read each value's spend per UTC day of the window (SpendValueFigures.days). */
  daily?: boolean;
}

/** A value's spend on one UTC day of the window, in the window's currency. */
export interface SpendDay {
  /** Midnight UTC starting the day, nanoseconds. */
  startNs: bigint;
  spend: number;
}

export type TokenSums = Record<(typeof TOKEN_COLUMNS)[number], number>;

/** One value's figures: spend and spans with a cost in the window's currency, every span and token whatever the currency. */
export interface SpendValueFigures {
  value: string | null;
  /** Grouped by an indexed attribute: the spans whose value the slot does not keep (value null). */
  unkept?: boolean;
  spend: number;
  spans: number;
  /** The traces whose root span is among the spans (a span without a parent). */
  traces: number;
  spansWithCost: number;
  tokens: TokenSums;
  unpricedSpans: number;
  unpricedTokens: number;
  previousSpend: number;
  previousSpans: number;
  /**
   * With `daily`: the days of the window on which the value has a span (whatever its currency), in
   * order; a day left out has none, so no spend.
   */
  days?: SpendDay[];
}

export interface OtherCurrencySpend {
  currency: string;
  spend: number;
  /** The spans with a cost in that currency. */
  spans: number;
}

export interface SpendRead {
  /** Every value with a span in either window, in no particular order. */
  values: SpendValueFigures[];
  otherCurrencies: OtherCurrencySpend[];
}

/** The columns each source row has, in order: time, key, currency, then the measures. */
const MEASURES = ['span_count', 'trace_count', 'cost_count', 'cost_sum', ...TOKEN_COLUMNS, 'unpriced_count', 'unpriced_tokens'] as const;

/** One span as a roll-up row's measures, column for column with MEASURES. */
const SPAN_AS_ROW = [
  '1',
  'CASE WHEN s.parent_span_id IS NULL THEN 1 ELSE 0 END',
  'CASE WHEN s.cost IS NULL THEN 0 ELSE 1 END',
  'COALESCE(s.cost, 0)',
  ...TOKEN_COLUMNS.map((column) => `COALESCE(s.${column}, 0)`),
  'CASE WHEN s.unpriced_reason IS NULL THEN 0 ELSE 1 END',
  'CASE WHEN s.unpriced_reason IS NULL THEN 0 ELSE COALESCE(s.total_tokens, 0) END',
];

interface Fragment {
  sql: string;
  bindings: Knex.Value[];
}

/** What the sums read: a FROM with its WHERE (alias `r`), and the names of its time and key columns. */
interface Source extends Fragment {
  time: string;
  keys: string[];
}

/** The key expressions over spans `s` of some applications, with their bindings (in the select list's order). */
interface SpanPart {
  applicationIds: string[];
  keys: string[];
  bindings: Knex.Value[];
}

/** What a read groups by: columns of a roll-up table, and the same values as expressions over the spans. */
interface Grouping {
  table: string;
  columns: readonly string[];
  /** Which of the table's rows of these applications besides the ranges (SQL over `r`). */
  rowsWhere?(applicationIds: readonly string[]): Fragment;
  /** The key expressions over the spans of these applications, in parts. */
  spanParts(knex: Knex, applicationIds: readonly string[]): SpanPart[];
  /** A group's value from its key values (k0, k1, …), and its identity among the read's values. */
  valueOf(row: Record<string, unknown>): GroupValue;
}

interface GroupValue {
  id: string;
  value: string | null;
  unkept: boolean;
}

/** spend_rollups grouped by its columns (a dimension, the application), the spans by the same columns. */
function columnGrouping(columns: readonly SpendKey[]): Grouping {
  return {
    table: SPEND_ROLLUPS.name,
    columns,
    spanParts: (_knex, applicationIds) => [{ applicationIds: [...applicationIds], keys: columns.map((key) => `s.${key}`), bindings: [] }],
    // The first column's value, null for the spans without one.
    valueOf: (row) => {
      const value = valueOf(row.k0);
      return { id: value === null ? '' : `=${value}`, value, unkept: false };
    },
  };
}

/** spend_slot_rollups under each application's slot and generation, grouped by kind of value and value; the spans one part per application. */
function slotGrouping(key: SlotKey): Grouping {
  return {
    table: SPEND_SLOT_ROLLUPS.name,
    columns: ['value_kind', 'value'],
    // Slot and generation are trusted numbers of the application's state.
    rowsWhere: (ids) => ({
      sql: `(${ids
        .map((id) => {
          const slot = slotOf(key, id);
          return `(r.application_id = ? AND r.slot = ${Math.trunc(slot.slot)} AND r.generation = ${Math.trunc(slot.generation)})`;
        })
        .join(' OR ')})`,
      bindings: [...ids],
    }),
    spanParts: (knex, ids) =>
      ids.map((id) => {
        // spendSlotKeys' kind and value, column for column with `columns`.
        const keys = spendSlotKeys(knex, slotOf(key, id));
        return { applicationIds: [id], keys: [keys.expressions[2] as string, keys.expressions[3] as string], bindings: [...keys.bindings] };
      }),
    // The kept string; null for no value; null marked `unkept` for the values the slot does not keep.
    valueOf: (row) => {
      const kind = num(row.k0);
      if (kind === VALUE_KEPT) {
        const value = textOf(row.k1);
        return { id: `=${value}`, value, unkept: false };
      }
      return kind === VALUE_UNKEPT ? { id: '?', value: null, unkept: true } : { id: '', value: null, unkept: false };
    },
  };
}

function slotOf(key: SlotKey, applicationId: string): IndexedSlot {
  const slot = key.slots.get(applicationId);
  if (slot === undefined) throw new Error(`no slot of the key for application ${applicationId}`);
  return slot;
}

/** The time range [fromNs, toNs), the roll-up rows that cover it (spendRanges) and what the read groups by. */
interface SourceBounds {
  fromNs: bigint;
  toNs: bigint;
  ranges: readonly SpendRange[];
  grouping: Grouping;
}

const places = (ids: readonly string[]) => ids.map(() => '?').join(', ');

/** The rows of a roll-up table over the ranges (alias `r`): one range of the primary key per application and range. */
function rangeRows(knex: Knex, table: string, ranges: readonly SpendRange[], applicationIds: readonly string[]): Fragment {
  const { exactInteger } = dialectFor(knex);
  // The width written out, as the deletes do: MariaDB may compare a bound one as a double.
  const conditions = ranges.map(
    (range) =>
      `(r.bucket_width_s = ${range.widthS} AND r.bucket_start_unix_nano >= ${exactInteger} AND r.bucket_start_unix_nano < ${exactInteger})`,
  );
  return {
    sql: `${table} r WHERE r.application_id IN (${places(applicationIds)}) AND (${conditions.join(' OR ')})`,
    bindings: [...applicationIds, ...ranges.flatMap((range) => [range.fromNs.toString(), range.toNs.toString()])],
  };
}

/** The grouping's roll-up rows of the ranges (alias `r`). */
function rollupRows(knex: Knex, bounds: SourceBounds, applicationIds: readonly string[]): Fragment {
  const rows = rangeRows(knex, bounds.grouping.table, bounds.ranges, applicationIds);
  const which = bounds.grouping.rowsWhere?.(applicationIds);
  return which === undefined ? rows : { sql: `${rows.sql} AND ${which.sql}`, bindings: [...rows.bindings, ...which.bindings] };
}

/** The applications whose roll-up rows from `fromNs` on are whole, and the others (answered from their spans). */
async function sourcesOf(
  trx: Knex,
  applicationIds: readonly string[],
  fromNs: bigint,
): Promise<[fromRollups: string[], fromSpans: string[]]> {
  const fromRollups: string[] = [];
  const fromSpans: string[] = [];
  for (const id of applicationIds) (atOrAfterEdge(await purgeEdgeOf(trx, id), fromNs) ? fromRollups : fromSpans).push(id);
  return [fromRollups, fromSpans];
}

/**
 * Of the applications read from an indexed attribute's roll-ups, those whose rows over the ranges
 * count fewer spans than spend_rollups' (a key indexed while its backfill's fill of the roll-ups
 * is still running, an hour a writer left short meanwhile): they are read from their spans. Every
 * span counts at most once under a generation, so equal sums mean every bucket is whole.
 */
async function shortOfSpans(trx: Knex, bounds: SourceBounds, applicationIds: readonly string[]): Promise<Set<string>> {
  if (bounds.grouping.rowsWhere === undefined || applicationIds.length === 0) return new Set();
  const { asText } = dialectFor(trx);
  const every = rangeRows(trx, SPEND_ROLLUPS.name, bounds.ranges, applicationIds);
  const counted = rollupRows(trx, bounds, applicationIds);
  const sums = (tag: number, rows: Fragment) =>
    `SELECT ${tag} AS tag, r.application_id AS id, ${asText('SUM(r.span_count)')} AS n FROM ${rows.sql} GROUP BY r.application_id`;
  const result = (await trx.raw(`${sums(0, every)} UNION ALL ${sums(1, counted)}`, [...every.bindings, ...counted.bindings])) as unknown;
  const spans = new Map<string, [string, string]>();
  for (const row of rowsOf(result)) {
    const id = textOf(row.id);
    const pair = spans.get(id) ?? ['0', '0'];
    pair[num(row.tag)] = textOf(row.n);
    spans.set(id, pair);
  }
  return new Set([...spans].filter(([, [every, counted]]) => every !== counted).map(([id]) => id));
}

/**
 * The rows of the read: the roll-up table itself when every application is answered from it (the
 * usual case: MariaDB then reads the primary key's range without materializing a derived table),
 * otherwise the union of the roll-ups of some and the spans of the others.
 */
function sourceOf(knex: Knex, bounds: SourceBounds, fromRollups: readonly string[], fromSpans: readonly string[]): Source {
  if (fromSpans.length === 0)
    return {
      ...rollupRows(knex, bounds, fromRollups),
      time: 'r.bucket_start_unix_nano',
      keys: bounds.grouping.columns.map((key) => `r.${key}`),
    };
  const rows = sourceRows(knex, bounds, fromRollups, fromSpans);
  return {
    sql: `(${rows.sql}) r WHERE 1 = 1`,
    bindings: rows.bindings,
    time: 'r.t',
    keys: bounds.grouping.columns.map((_, index) => `r.k${index}`),
  };
}

/** The rows of the whole read ([fromNs, toNs)), from the roll-ups of some applications and the spans of the others. */
function sourceRows(knex: Knex, bounds: SourceBounds, fromRollups: readonly string[], fromSpans: readonly string[]): Fragment {
  const { exactInteger } = dialectFor(knex);
  const range = [bounds.fromNs.toString(), bounds.toNs.toString()];
  const parts: Fragment[] = [];
  if (fromRollups.length > 0) {
    const rows = rollupRows(knex, bounds, fromRollups);
    const keys = bounds.grouping.columns.map((key, index) => `r.${key} AS k${index}`).join(', ');
    parts.push({
      sql:
        `SELECT r.bucket_start_unix_nano AS t, ${keys}, r.currency AS currency, ${MEASURES.map((column) => `r.${column} AS ${column}`).join(', ')} ` +
        `FROM ${rows.sql}`,
      bindings: rows.bindings,
    });
  }
  if (fromSpans.length > 0)
    for (const part of bounds.grouping.spanParts(knex, fromSpans))
      parts.push({
        sql:
          `SELECT s.start_time_unix_nano AS t, ${part.keys.map((key, index) => `${key} AS k${index}`).join(', ')}, ${SPEND_CURRENCY_SQL} AS currency, ` +
          `${SPAN_AS_ROW.map((expression, index) => `${expression} AS ${MEASURES[index]}`).join(', ')} ` +
          `FROM spans s WHERE s.application_id IN (${places(part.applicationIds)}) ` +
          `AND s.start_time_unix_nano >= ${exactInteger} AND s.start_time_unix_nano < ${exactInteger}`,
        bindings: [...part.bindings, ...part.applicationIds, ...range],
      });
  return { sql: parts.map((part) => part.sql).join(' UNION ALL '), bindings: parts.flatMap((part) => part.bindings) };
}

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** The figures of a value before any row is added. */
function noFigures(value: string | null): SpendValueFigures {
  return {
    value,
    spend: 0,
    spans: 0,
    traces: 0,
    spansWithCost: 0,
    tokens: Object.fromEntries(TOKEN_COLUMNS.map((column) => [column, 0])) as TokenSums,
    unpricedSpans: 0,
    unpricedTokens: 0,
    previousSpend: 0,
    previousSpans: 0,
  };
}

/**
 * Reads the window's spend per value of the key, in one snapshot (the purge edges and the rows):
 * one statement sums the rows per value, currency and window (a few rows per value), and the
 * figures are put together here, the other currencies' spend too.
 */
export async function readSpend(knex: Knex, window: SpendWindow): Promise<SpendRead> {
  if (window.applicationIds.length === 0) return { values: [], otherCurrencies: [] };
  const dialect = dialectFor(knex);
  return knex.transaction(async (trx) => {
    const [fromRollups, fromSpans] = await sourcesOf(trx, window.applicationIds, window.previousStartNs);
    const ranges = spendRanges([window.previousStartNs, window.startNs, window.endNs]);
    const grouping = typeof window.key === 'string' ? columnGrouping([window.key]) : slotGrouping(window.key);
    const bounds: SourceBounds = { fromNs: window.previousStartNs, toNs: window.endNs, ranges, grouping };
    const short = await shortOfSpans(trx, bounds, fromRollups);
    const source = sourceOf(
      trx,
      bounds,
      fromRollups.filter((id) => !short.has(id)),
      [...fromSpans, ...short],
    );
    // Counts and token sums as text: MariaDB answers a SUM of integers as a DECIMAL.
    const sums = MEASURES.map((column) =>
      column === 'cost_sum' ? `SUM(r.${column}) AS ${column}` : `${dialect.asText(`SUM(r.${column})`)} AS ${column}`,
    );
    const result = (await trx.raw(
      `SELECT ${pickedKeys(source)}, MIN(r.currency) AS currency, ` +
        `CASE WHEN ${source.time} >= ${dialect.exactInteger} THEN 1 ELSE 0 END AS in_window, ${sums.join(', ')} ` +
        `FROM ${source.sql} GROUP BY ${[...source.keys, 'r.currency'].map((key) => dialect.exactKey(key)).join(', ')}, in_window`,
      [window.startNs.toString(), ...source.bindings],
    )) as unknown;
    const values = new Map<string, SpendValueFigures>();
    const others = new Map<string, OtherCurrencySpend>();
    for (const row of rowsOf(result)) {
      const value = grouping.valueOf(row);
      let figures = values.get(value.id);
      if (figures === undefined) {
        figures = { ...noFigures(value.value), ...(value.unkept && { unkept: true }) };
        values.set(value.id, figures);
      }
      const currency = row.currency === null || row.currency === undefined ? null : textOf(row.currency);
      const counted = currency === window.currency;
      if (num(row.in_window) !== 1) {
        figures.previousSpans += num(row.span_count);
        if (counted) figures.previousSpend += num(row.cost_sum);
        continue;
      }
      figures.spans += num(row.span_count);
      figures.traces += num(row.trace_count);
      for (const column of TOKEN_COLUMNS) figures.tokens[column] += num(row[column]);
      figures.unpricedSpans += num(row.unpriced_count);
      figures.unpricedTokens += num(row.unpriced_tokens);
      if (counted) {
        figures.spend += num(row.cost_sum);
        figures.spansWithCost += num(row.cost_count);
      } else if (currency !== null) {
        const other = others.get(currency) ?? { currency, spend: 0, spans: 0 };
        other.spend += num(row.cost_sum);
        other.spans += num(row.cost_count);
        others.set(currency, other);
      }
    }
    const days = window.daily ? await readDays(trx, window, source, grouping) : undefined;
    if (days) for (const [id, figures] of values) figures.days = days.get(id) ?? [];
    return {
      values: [...values.values()],
      otherCurrencies: [...others.values()].sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0)),
    };
  }, dialect.snapshot);
}

/** One UTC day of one application's spend for one combination of the spend dimensions and currency. */
export interface DailySpendRow {
  dayStartNs: bigint;
  dimensions: Record<SpendDimension, string | null>;
  /** The spend currency (README.md beside this file); null for the spans without a cost. */
  currency: string | null;
  spans: number;
  /** The traces whose root span is among the spans. */
  traces: number;
  spansWithCost: number;
  cost: number;
  tokens: TokenSums;
  unpricedSpans: number;
  unpricedTokens: number;
}

/**
 * An application's spend over [startNs, endNs) (whole UTC days) per UTC day and combination of
 * the spend dimensions and currency, in one snapshot: the roll-ups' day rows, or the spans where
 * the purge edge lies above startNs (as readSpend). In no particular order.
 */
export async function readDailySpend(knex: Knex, applicationId: string, startNs: bigint, endNs: bigint): Promise<DailySpendRow[]> {
  const dialect = dialectFor(knex);
  return knex.transaction(async (trx) => {
    const [fromRollups, fromSpans] = await sourcesOf(trx, [applicationId], startNs);
    const bounds = { fromNs: startNs, toNs: endNs, ranges: spendRanges([startNs, endNs]), grouping: columnGrouping(SPEND_DIMENSIONS) };
    const source = sourceOf(trx, bounds, fromRollups, fromSpans);
    // A trusted constant: the day's index since the epoch, exact on 64-bit integers.
    const day = dialect.integerDivide(source.time, DAY_NS.toString());
    const sums = MEASURES.map((column) =>
      column === 'cost_sum' ? `SUM(r.${column}) AS ${column}` : `${dialect.asText(`SUM(r.${column})`)} AS ${column}`,
    );
    const rows = (await trx.raw(
      `SELECT ${dialect.asText(day)} AS day, ${source.keys.map((key, index) => `MIN(${key}) AS k${index}`).join(', ')}, ` +
        `MIN(r.currency) AS currency, ${sums.join(', ')} FROM ${source.sql} ` +
        `GROUP BY ${[day, ...source.keys, 'r.currency'].map((key, index) => (index === 0 ? key : dialect.exactKey(key))).join(', ')}`,
      source.bindings,
    )) as unknown;
    const text = (value: unknown) => (value === null || value === undefined ? null : textOf(value));
    return rowsOf(rows).map((row) => ({
      dayStartNs: BigInt(textOf(row.day)) * DAY_NS,
      dimensions: Object.fromEntries(SPEND_DIMENSIONS.map((dimension, index) => [dimension, text(row[`k${index}`])])) as Record<
        SpendDimension,
        string | null
      >,
      currency: text(row.currency),
      spans: num(row.span_count),
      traces: num(row.trace_count),
      spansWithCost: num(row.cost_count),
      cost: num(row.cost_sum),
      tokens: Object.fromEntries(TOKEN_COLUMNS.map((column) => [column, num(row[column])])) as TokenSums,
      unpricedSpans: num(row.unpriced_count),
      unpricedTokens: num(row.unpriced_tokens),
    }));
  }, dialect.snapshot);
}

/** The window's spend per value (by Grouping.valueOf's id) and UTC day, one statement over the same rows as the sums. */
async function readDays(trx: Knex, window: SpendWindow, source: Source, grouping: Grouping): Promise<Map<string, SpendDay[]>> {
  const dialect = dialectFor(trx);
  const origin = dayStartNs(window.startNs);
  // Days counted from the midnight at or before the window's start: never negative, so the
  // truncating division floors.
  const day = dialect.integerDivide(`${source.time} - ${dialect.exactInteger}`, DAY_NS.toString());
  const spend = 'SUM(CASE WHEN r.currency = ? THEN r.cost_sum ELSE 0 END)';
  const inWindow = `${source.time} >= ${dialect.exactInteger}`;
  const sql =
    `SELECT ${pickedKeys(source)}, ${day} AS day_index, ${spend} AS spend FROM ${source.sql} AND ${inWindow} ` +
    `GROUP BY ${source.keys.map((key) => dialect.exactKey(key)).join(', ')}, day_index`;
  const rows = (await trx.raw(sql, [origin.toString(), window.currency, ...source.bindings, window.startNs.toString()])) as unknown;
  const days = new Map<string, SpendDay[]>();
  for (const row of rowsOf(rows)) {
    const { id } = grouping.valueOf(row);
    const list = days.get(id) ?? [];
    list.push({ startNs: origin + BigInt(String(row.day_index)) * DAY_NS, spend: num(row.spend) });
    days.set(id, list);
  }
  for (const list of days.values()) list.sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
  return days;
}

/** The source's key values of a group, as k0, k1, …: within a group each has the same bytes, MIN picks it. */
function pickedKeys(source: Source): string {
  return source.keys.map((key, index) => `MIN(${key}) AS k${index}`).join(', ');
}

/** The rows of a raw SELECT: better-sqlite3 answers an array, mysql2 [rows, fields]. */
function rowsOf(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result) && Array.isArray(result[0])) return result[0] as Array<Record<string, unknown>>;
  return result as Array<Record<string, unknown>>;
}

/** A key value as read, null for the spans without one. */
function valueOf(value: unknown): string | null {
  return value === null || value === undefined ? null : textOf(value);
}

/** A key value: MariaDB may answer a binary-collated text as bytes. */
function textOf(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** The spend keys the summaries offer. */
export const SPEND_KEYS: readonly SpendKey[] = ['application_id', ...SPEND_DIMENSIONS];
