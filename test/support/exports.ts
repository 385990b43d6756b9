// What export tests share: random spans of one application (traces of a root and children, LLM
// calls, attributes, events with 19-digit times, text that CSV must quote), stored as received a
// moment ago; the job's calls; the whole of a query's pages to compare a file with; the file
// downloaded as bytes (checked against the document); and CSV read back into records.
import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import fc from 'fast-check';
import { recordColumns } from '../../src/exports/columns.js';
import { EXPORT_PARTS } from '../../src/storage/exports/export-parts.js';
import type { ExportColumn } from '../../src/exports/formats/format.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import type { EngineCaller } from './auth.js';
import { assertMatchesContract, call, type ApiResponse } from './contract.js';
import { nanosToRfc3339, parseExact } from './engine-helpers.js';
import { llmCallAttributes } from './llm-calls.js';
import { seededRandom } from './seeded-random.js';
import { spanRow } from './span-rows.js';
import type { TestServer } from './test-server.js';

export const BASE = 1_763_800_000_000_000_000n;
const SECOND = 1_000_000_000n;
/** Two hours from BASE: every span the builders make starts in it. */
export const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 7200n * SECOND) };

const TEXTS = ['checkout', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rlf', 'café ☕', '🚀', ' padded ', '=1+2', '200'];
const SERVICES = ['checkout', 'billing', 'search, v2', 'llm "gateway"'];
const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

/**
 * `traces` random traces of 1 to 5 spans each (a root and children, some children without their
 * root), in the window, for `applicationId`; the same for the same seed.
 */
export function randomSpans(applicationId: string, seed: number, traces: number, traceOffset = 0): SpanRow[] {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const calls = fc.sample(llmCallAttributes, { seed, numRuns: traces * 5 });
  const rows: SpanRow[] = [];
  for (let trace = 0; trace < traces; trace += 1) {
    const traceId = hex(traceOffset + trace + 1, 32);
    const rootStart = BASE + BigInt(Math.floor(random() * 7000)) * SECOND + BigInt(Math.floor(random() * 1e9));
    const rootId = hex((traceOffset + trace) * 16 + 1, 16);
    const spans = 1 + Math.floor(random() * 5);
    // A few traces lack their root span (POST /traces does not list them).
    const rootless = random() < 0.1;
    for (let index = rootless ? 1 : 0; index < spans; index += 1) {
      const start = rootStart + BigInt(index) * 1_000_000n * BigInt(1 + Math.floor(random() * 900));
      const end = start + BigInt(1 + Math.floor(random() * 5e9));
      const call = index > 0 && random() < 0.5 ? (calls.pop() ?? {}) : {};
      const attributes: Record<string, unknown> = { ...call, 'http.route': pick(TEXTS), 'retry.count': Math.floor(random() * 4) };
      if (random() < 0.3) attributes['flag.enabled'] = random() < 0.5;
      rows.push(
        spanRow({
          application_id: applicationId,
          trace_id: traceId,
          span_id: hex((traceOffset + trace) * 16 + 1 + index, 16),
          parent_span_id: index === 0 ? null : rootId,
          start_time_unix_nano: start.toString(),
          end_time_unix_nano: end.toString(),
          duration_ms: Number(end - start) / 1e6,
          span_name: index === 0 ? `GET /${pick(TEXTS)}` : pick(['db.query', 'llm.call', 'cache get', 'render, page']),
          span_kind: index === 0 ? 'SPAN_KIND_SERVER' : pick(['SPAN_KIND_CLIENT', 'SPAN_KIND_INTERNAL']),
          service_name: pick(SERVICES),
          unit: random() < 0.5 ? pick(['llm', 'db', 'web']) : null,
          cost: random() < 0.4 ? Math.round(random() * 1e6) / 1e7 : null,
          billing_region: random() < 0.3 ? 'europe-west4' : null,
          usage_amount: random() < 0.3 ? Math.floor(random() * 2000) : null,
          usage_unit: random() < 0.3 ? 'tokens' : null,
          resource_attributes: JSON.stringify({ 'service.name': pick(SERVICES), 'deployment.environment': pick(['prod', 'dev']) }),
          span_attributes: JSON.stringify(attributes),
          status_code: random() < 0.15 ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_OK',
          status_message: random() < 0.1 ? pick(TEXTS) : null,
          events:
            random() < 0.2
              ? JSON.stringify([
                  { name: 'exception', time_unix_nano: (start + 1234n).toString(), attributes: {}, dropped_attributes_count: 0 },
                ])
              : null,
          received_at: Date.now() - 60_000,
        }),
      );
    }
  }
  // The events' times as exact JSON integers, as ingestion stores them.
  return rows.map((row) => (row.events ? { ...row, events: row.events.replace(/"time_unix_nano":"(\d+)"/g, '"time_unix_nano":$1') } : row));
}

export async function storeRandomSpans(app: TestServer, rows: SpanRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += 500) await storeSpans(app.server.knex, rows.slice(at, at + 500));
}

export type ExportBody = Record<string, unknown>;
/** The query of POST /engine/exports: the window, and `compression` when asked. */
export type ExportQuery = Record<string, string>;

/** The parts of an export's file stored now. */
export async function storedParts(app: TestServer, id: string): Promise<number> {
  const [row] = (await app.server.knex(EXPORT_PARTS).where('export_id', id).count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
}

/** POST /engine/exports over `query` (the window by default); the answer, 202 expected by the caller. */
export function createExport(
  app: TestServer,
  caller: EngineCaller,
  body: ExportBody = {},
  query: ExportQuery = WINDOW,
): Promise<ApiResponse> {
  return call(app.url, 'POST', '/engine/exports', { query, headers: caller.headers, json: body });
}

/** Creates an export, runs the worker until it has nothing left, and answers the job as read back. */
export async function exportNow(
  app: TestServer,
  caller: EngineCaller,
  body: ExportBody = {},
  query: ExportQuery = WINDOW,
): Promise<Record<string, any>> {
  const created = await createExport(app, caller, body, query);
  expect(created.status, created.text).to.equal(202);
  await app.server.exporter.runOnce();
  return readExport(app, caller, created.body.id as string);
}

export async function readExport(app: TestServer, caller: EngineCaller, id: string): Promise<Record<string, any>> {
  const read = await call(app.url, 'GET', `/engine/exports/${id}`, { headers: caller.headers });
  expect(read.status, read.text).to.equal(200);
  return read.body;
}

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET (or HEAD) of an export's file as bytes; the answer is checked against the document. */
export function download(
  app: TestServer,
  caller: EngineCaller,
  id: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Download> {
  return fetchFile(app, `/engine/exports/${id}/file`, { ...caller.headers, ...headers }, method);
}

/** GET (or HEAD) of a download link's path (createExportLink), with no credentials unless `headers` has some. */
export function downloadByLink(
  app: TestServer,
  downloadPath: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Download> {
  return fetchFile(app, downloadPath, headers, method);
}

async function fetchFile(app: TestServer, path: string, headers: Record<string, string>, method: string): Promise<Download> {
  const url = new URL(path, app.url);
  const response = await fetch(url, { method, headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  const contentType = response.headers.get('content-type') ?? '';
  const body = contentType.includes('application/json') && text !== '' ? JSON.parse(text) : text;
  await assertMatchesContract(method === 'HEAD' ? 'GET' : method, url.pathname, {
    status: response.status,
    headers: response.headers,
    body,
    text,
  });
  return { status: response.status, headers: response.headers, bytes };
}

type Json = Record<string, unknown>;

/** Every page of POST /engine/query (or POST /traces, with `traces`) by cursor, its records as parseExact reads them. */
export async function allPages(
  app: TestServer,
  caller: EngineCaller,
  filter: unknown,
  traces?: { searchChildSpans: boolean },
): Promise<Json[]> {
  const records: Json[] = [];
  let cursor: string | undefined;
  do {
    const query = { ...WINDOW, limit: 100, cursor, ...(traces ? { search_child_spans: traces.searchChildSpans } : {}) };
    const page = await call(app.url, 'POST', traces ? '/traces' : '/engine/query', { query, headers: caller.headers, json: { filter } });
    expect(page.status, page.text).to.equal(200);
    const body = parseExact<{ data: Json[]; next_cursor: string | null }>(page.text) as { data: Json[]; next_cursor: string | null };
    records.push(...body.data);
    cursor = body.next_cursor ?? undefined;
  } while (cursor);
  return records;
}

/** Only `columns` of each record, in their order (all when null). */
export function pick(records: Json[], columns: string[] | null): Json[] {
  if (columns === null) return records;
  return records.map((record) => Object.fromEntries(columns.map((column) => [column, record[column]])));
}

/** An NDJSON file's records, as parseExact reads them. */
export function ndjsonRecords(bytes: Buffer): Json[] {
  const text = bytes.toString('utf8');
  if (text === '') return [];
  expect(text.endsWith('\n'), 'the last line ends with \\n').to.equal(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => parseExact<Json>(line) as Json);
}

/** A CSV file's records: its header names the columns; each field read back by its column's type (empty: null). */
export function csvRecords(bytes: Buffer, grain: 'spans' | 'traces'): { header: string[]; records: Json[] } {
  const rows = parseCsv(bytes.toString('utf8'), { relax_column_count: false }) as string[][];
  const [header = [], ...data] = rows;
  const types = new Map<string, ExportColumn['type']>(recordColumns(grain).map((column) => [column.name, column.type]));
  const value = (name: string, cell: string): unknown => {
    if (cell === '') return null;
    const type = types.get(name);
    if (type === 'integer') return name.endsWith('_unix_nano') ? cell : Number(cell);
    if (type === 'number') return Number(cell);
    if (type === 'boolean') return cell === 'true';
    if (type === 'json') return parseExact<unknown>(cell);
    return cell;
  };
  return { header, records: data.map((row) => Object.fromEntries(header.map((name, index) => [name, value(name, row[index] as string)]))) };
}

/** A Parquet file's records, read back by hyparquet: its schema names the columns; values as the API's JSON gives them. */
export async function parquetRecords(bytes: Buffer, grain: 'spans' | 'traces'): Promise<{ header: string[]; records: Json[] }> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  const rows = (await parquetReadObjects({ file, compressors })) as Json[];
  const types = new Map<string, ExportColumn['type']>(recordColumns(grain).map((column) => [column.name, column.type]));
  const value = (name: string, cell: unknown): unknown => {
    if (cell === null || cell === undefined) return null;
    const type = types.get(name);
    // INT64 reads as a bigint: the 19-digit times as their digits (as parseExact gives them), counts as numbers.
    if (type === 'integer') return name.endsWith('_unix_nano') ? String(cell) : Number(cell);
    if (type === 'json') return parseExact<unknown>(cell as string);
    return cell;
  };
  const header = rows[0] ? Object.keys(rows[0]) : [];
  return { header, records: rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, cell]) => [name, value(name, cell)]))) };
}
