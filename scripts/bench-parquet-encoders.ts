// The measurement behind the Parquet format of exports (docs/exports-parquet.md): span records as
// `POST /engine/query` answers them, encoded in row groups of one export batch each, by the
// export format (src/exports/parquet, hyparquet-writer) and by the other candidate libraries.
//
//   node --expose-gc --import tsx scripts/bench-parquet-encoders.ts [--records 100000] [--batch 2000] [--rounds 3]
//
// The records are the ingest bench's GenAI traces (scripts/lib/bench-workload.ts, a third each of
// the vendor, genai-reported and genai-priced workloads) mapped as ingestion stores them and read
// back as the engine writes them (src/engine/wire.ts). Each encoder runs in a process of its own
// over the same records (read from a cache file) so that its peak memory is its own: the figure
// is the highest RSS sampled after each batch and at the end, above the RSS with the records
// loaded. The encoders take turns in rounds, and each figure is the median of the rounds; the CPU
// seconds (the encoding process's own) are the figure least moved by other work on the machine. Every file is read back with hyparquet and checked. The discarded candidates are
// measured only when installed (npm install --no-save @dsnp/parquetjs parquet-wasm apache-arrow).
import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { compressors as readCompressors } from 'hyparquet-compressors';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { spanRecord } from '../src/engine/wire.js';
import type { ExportColumn } from '../src/exports/formats/format.js';
import { parquetFormat } from '../src/exports/parquet/parquet-format.js';
import { decodeProtobufRequest } from '../src/ingest/otlp-protobuf.js';
import { toSpanRows } from '../src/ingest/span-mapping.js';
import { exactJson, JsonInteger, RawJson } from '../src/json/exact-json.js';
import type { StoredSpan } from '../src/storage/spans/stored-span.js';
import { makeBatches, WORKLOADS } from './lib/bench-workload.js';

/** The top-level fields of SpanRecord (openapi/engine.yaml) as export columns. */
const SPAN_COLUMNS: ExportColumn[] = [
  { name: 'trace_id', type: 'string' },
  { name: 'span_id', type: 'string' },
  { name: 'span_start_time_unix_nano', type: 'integer' },
  { name: 'span_end_time_unix_nano', type: 'integer' },
  { name: 'duration_ms', type: 'number' },
  { name: 'parent_span_id', type: 'string' },
  { name: 'span_name', type: 'string' },
  { name: 'span_kind', type: 'string' },
  { name: 'service_name', type: 'string' },
  { name: 'unit', type: 'string' },
  { name: 'parent_unit', type: 'string' },
  { name: 'resource_attributes', type: 'json' },
  { name: 'span_attributes', type: 'json' },
  { name: 'cost', type: 'number' },
  { name: 'billing', type: 'json' },
  { name: 'usage', type: 'json' },
  { name: 'model', type: 'string' },
  { name: 'provider', type: 'string' },
  { name: 'tokens', type: 'json' },
  { name: 'cost_source', type: 'string' },
  { name: 'pricing', type: 'json' },
  { name: 'status_code', type: 'string' },
  { name: 'status_message', type: 'string' },
  { name: 'scope_name', type: 'string' },
  { name: 'scope_version', type: 'string' },
  { name: 'events', type: 'json' },
  { name: 'links', type: 'json' },
  { name: 'dropped_attributes_count', type: 'integer' },
  { name: 'dropped_events_count', type: 'integer' },
  { name: 'dropped_links_count', type: 'integer' },
];

type ExportRecord = Record<string, unknown>;

interface Candidate {
  name: string;
  library: string;
  /** The package it needs beyond the project's own: measured only when installed. */
  needs?: string;
  codec: string;
  /** Whether the library can write a row group now and the footer in another process later. */
  resumable: string;
  encode(records: ExportRecord[], batch: number, out: Output): Promise<Record<string, number>>;
}

interface Output {
  write(bytes: Uint8Array): void;
  /** Called after each batch: samples the memory. */
  batchDone(): void;
}

interface Result {
  candidate: string;
  library: string;
  codec: string;
  resumable: string;
  seconds: number;
  cpuSeconds: number;
  bytes: number;
  peakBytes: number;
  extra: Record<string, number>;
}

const { values: options } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    child: { type: 'string' },
    cache: { type: 'string' },
    out: { type: 'string' },
  },
});
const RECORDS = Number(options.records);
const BATCH = Number(options.batch);
const ROUNDS = Number(options.rounds);

// ---- the records -------------------------------------------------------------------------

/** A wire record as the export hands it to a format: nanoseconds as decimal text, JSON columns as values. */
function exportRecord(wire: Record<string, unknown>): ExportRecord {
  const record: ExportRecord = {};
  for (const [key, value] of Object.entries(wire))
    record[key] = value instanceof JsonInteger ? value.digits : value instanceof RawJson ? JSON.parse(value.text) : value;
  return record;
}

/** Writes the records to `cache` (one JSON line each) and answers the NDJSON figures of the same spans. */
function generate(cache: string): { ndjsonBytes: number; gzipBytes: number } {
  const lines: string[] = [];
  const perWorkload = Math.ceil(RECORDS / WORKLOADS.length / 1000) * 1000;
  const out = openSync(cache, 'w');
  let written = 0;
  for (const workload of WORKLOADS) {
    for (const body of makeBatches(perWorkload, 1000, workload)) {
      for (const row of toSpanRows(decodeProtobufRequest(body), 'app_bench', 1_795_305_600_000).rows) {
        if (written === RECORDS) break;
        const wire = spanRecord({ ...row, seq: String(written + 1) } as unknown as StoredSpan);
        lines.push(exactJson(wire));
        writeSync(out, `${JSON.stringify(exportRecord(wire as unknown as Record<string, unknown>))}\n`);
        written += 1;
      }
    }
  }
  closeSync(out);
  const ndjson = Buffer.from(`${lines.join('\n')}\n`);
  return { ndjsonBytes: ndjson.length, gzipBytes: gzipSync(ndjson).length };
}

async function load(cache: string): Promise<ExportRecord[]> {
  const records: ExportRecord[] = [];
  for await (const line of createInterface({ input: createReadStream(cache) })) if (line) records.push(JSON.parse(line));
  return records;
}

// ---- the candidates ----------------------------------------------------------------------

/** A record's values as the libraries take them: bigints, and JSON as its text. */
function typedValue(column: ExportColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'integer') return BigInt(value as string | number);
  if (column.type === 'json') return typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

function hyparquetSchema(): SchemaElement[] {
  const types = {
    string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
    json: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
    integer: { type: 'INT64' },
    number: { type: 'DOUBLE' },
    boolean: { type: 'BOOLEAN' },
  } as const;
  return [
    { name: 'schema', num_children: SPAN_COLUMNS.length },
    ...SPAN_COLUMNS.map((column): SchemaElement => ({ name: column.name, repetition_type: 'OPTIONAL', ...types[column.type] })),
  ];
}

/** hyparquet-writer's own ParquetWriter in one process (no state between batches), for the state's cost. */
function hyparquetDirect(codec: 'SNAPPY' | 'GZIP'): Candidate {
  return {
    name: `hyparquet-writer-${codec.toLowerCase()}`,
    library: 'hyparquet-writer (one ParquetWriter)',
    codec,
    resumable: 'yes (ParquetWriter with a positioned writer and its row_groups)',
    async encode(records, batch, out) {
      const writer = new ByteWriter();
      const parquet = new ParquetWriter({
        writer,
        schema: hyparquetSchema(),
        codec,
        compressors: { GZIP: (input) => gzipSync(input) },
        createdBy: 'bench',
      });
      const flush = () => {
        out.write(writer.getBytes().slice());
        writer.index = 0;
      };
      flush();
      for (let start = 0; start < records.length; start += batch) {
        const slice = records.slice(start, start + batch);
        const columnData: ColumnSource[] = SPAN_COLUMNS.map((column) => ({
          name: column.name,
          data: slice.map((record) => typedValue(column, record[column.name])) as ColumnSource['data'],
          statistics: column.type !== 'json',
          offsetIndex: false,
        }));
        void parquet.write({ columnData, rowGroupSize: slice.length });
        flush();
        out.batchDone();
      }
      void parquet.finish();
      flush();
      return {};
    },
  };
}

/** The export format itself: head, a batch at a time with its state through JSON as the job stores it, tail. */
const exportFormat: Candidate = {
  name: 'export-format',
  library: 'src/exports/parquet (hyparquet-writer)',
  codec: 'GZIP',
  resumable: 'yes',
  async encode(records, batch, out) {
    const head = parquetFormat.head(SPAN_COLUMNS);
    let state = head.state;
    let offset = head.bytes.length;
    let stateBytes = 0;
    out.write(head.bytes);
    for (let start = 0; start < records.length; start += batch) {
      const written = parquetFormat.batch(SPAN_COLUMNS, records.slice(start, start + batch), state, offset);
      const stored = JSON.stringify(written.state);
      stateBytes = stored.length;
      state = JSON.parse(stored);
      offset += written.bytes.length;
      out.write(written.bytes);
      out.batchDone();
    }
    out.write(parquetFormat.tail(SPAN_COLUMNS, state, offset));
    return { finalStateBytes: stateBytes };
  },
};

// The discarded candidates, typed only as far as used here: they are installed for a measurement only.
interface ParquetJsWriter {
  appendRow(row: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}
interface ParquetJs {
  ParquetSchema: new (fields: Record<string, unknown>) => unknown;
  ParquetWriter: {
    openStream(
      schema: unknown,
      stream: { write(chunk: Buffer, callback: () => void): boolean; end(callback: () => void): void },
      opts: object,
    ): Promise<ParquetJsWriter>;
  };
}

function parquetJs(codec: 'SNAPPY' | 'GZIP'): Candidate {
  return {
    name: `parquetjs-${codec.toLowerCase()}`,
    library: '@dsnp/parquetjs',
    needs: '@dsnp/parquetjs',
    codec,
    resumable: 'yes, through its internal ParquetEnvelopeWriter (fileOffset, rowGroups of thrift Int64 objects)',
    async encode(records, batch, out) {
      const { ParquetSchema, ParquetWriter } = (await import('@dsnp/parquetjs' as string)) as ParquetJs;
      const types = { string: 'UTF8', json: 'UTF8', integer: 'INT64', number: 'DOUBLE', boolean: 'BOOLEAN' };
      const schema = new ParquetSchema(
        Object.fromEntries(SPAN_COLUMNS.map((column) => [column.name, { type: types[column.type], optional: true, compression: codec }])),
      );
      const stream = {
        write(chunk: Buffer, callback: () => void) {
          out.write(chunk);
          callback();
          return true;
        },
        end(callback: () => void) {
          callback();
        },
      };
      const writer = await ParquetWriter.openStream(schema, stream, { rowGroupSize: batch });
      for (let index = 0; index < records.length; index += 1) {
        const row: Record<string, unknown> = {};
        for (const column of SPAN_COLUMNS) {
          const value = typedValue(column, records[index][column.name]);
          if (value !== null) row[column.name] = value;
        }
        await writer.appendRow(row);
        if ((index + 1) % batch === 0) out.batchDone();
      }
      await writer.close();
      return {};
    },
  };
}

interface Arrow {
  vectorFromArray(values: unknown[], type: unknown): unknown;
  Table: new (batches: unknown[]) => unknown;
  RecordBatch: new (columns: Record<string, unknown>) => unknown;
  tableToIPC(table: unknown, format: 'stream'): Uint8Array;
  Utf8: new () => unknown;
  Int64: new () => unknown;
  Float64: new () => unknown;
  Bool: new () => unknown;
}
interface WriterPropertiesBuilder {
  setCompression(codec: number): WriterPropertiesBuilder;
  setMaxRowGroupSize(rows: number): WriterPropertiesBuilder;
  build(): unknown;
}
interface ParquetWasm {
  Table: { fromIPCStream(bytes: Uint8Array): unknown };
  WriterPropertiesBuilder: new () => WriterPropertiesBuilder;
  Compression: Record<string, number>;
  writeParquet(table: unknown, properties: unknown): Uint8Array;
}

function parquetWasm(codec: 'SNAPPY' | 'ZSTD'): Candidate {
  return {
    name: `parquet-wasm-${codec.toLowerCase()}`,
    library: 'parquet-wasm + apache-arrow',
    needs: 'parquet-wasm',
    codec,
    resumable: 'no (the footer state stays inside the WebAssembly writer)',
    async encode(records, batch, out) {
      const arrow = (await import('apache-arrow' as string)) as Arrow;
      const wasm = (await import('parquet-wasm/node' as string)) as ParquetWasm;
      const types = { string: arrow.Utf8, json: arrow.Utf8, integer: arrow.Int64, number: arrow.Float64, boolean: arrow.Bool };
      const batches: unknown[] = [];
      for (let start = 0; start < records.length; start += batch) {
        const slice = records.slice(start, start + batch);
        const columns = Object.fromEntries(
          SPAN_COLUMNS.map((column) => [
            column.name,
            arrow.vectorFromArray(
              slice.map((record) => typedValue(column, record[column.name])),
              new types[column.type](),
            ),
          ]),
        );
        batches.push(new arrow.RecordBatch(columns));
        out.batchDone();
      }
      const ipc = arrow.tableToIPC(new arrow.Table(batches), 'stream');
      out.batchDone();
      const properties = new wasm.WriterPropertiesBuilder().setCompression(wasm.Compression[codec]).setMaxRowGroupSize(batch).build();
      out.write(wasm.writeParquet(wasm.Table.fromIPCStream(ipc), properties));
      return {};
    },
  };
}

const CANDIDATES: Candidate[] = [
  exportFormat,
  hyparquetDirect('SNAPPY'),
  hyparquetDirect('GZIP'),
  parquetJs('SNAPPY'),
  parquetJs('GZIP'),
  parquetWasm('SNAPPY'),
  parquetWasm('ZSTD'),
];

async function installed(candidate: Candidate): Promise<boolean> {
  const module = candidate.library.startsWith('@dsnp')
    ? '@dsnp/parquetjs'
    : candidate.library.startsWith('parquet-wasm')
      ? 'apache-arrow'
      : undefined;
  if (module === undefined) return true;
  try {
    await import(module as string);
    return true;
  } catch {
    return false;
  }
}

// ---- one candidate in its own process ----------------------------------------------------

async function child(name: string, cache: string, outFile: string): Promise<void> {
  const candidate = CANDIDATES.find((each) => each.name === name);
  if (!candidate) throw new Error(`no candidate ${name}`);
  const records = await load(cache);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const fd = openSync(outFile, 'w');
  let bytes = 0;
  const out: Output = {
    write(chunk) {
      writeSync(fd, chunk);
      bytes += chunk.length;
    },
    batchDone() {
      peak = Math.max(peak, process.memoryUsage().rss);
    },
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  const extra = await candidate.encode(records, BATCH, out);
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  peak = Math.max(peak, process.memoryUsage().rss);
  closeSync(fd);
  const result: Result = {
    candidate: candidate.name,
    library: candidate.library,
    codec: candidate.codec,
    resumable: candidate.resumable,
    seconds,
    cpuSeconds: (user + system) / 1e6,
    bytes,
    peakBytes: peak - baseline,
    extra,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Reads the file back and compares every record's times, ids and attributes with the source. */
async function verify(file: string, records: ExportRecord[]): Promise<void> {
  const bytes = readFileSync(file);
  const rows = (await parquetReadObjects({
    file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    compressors: readCompressors,
  })) as ExportRecord[];
  if (rows.length !== records.length) throw new Error(`${file}: ${rows.length} rows, not ${records.length}`);
  rows.forEach((row, index) => {
    const record = records[index];
    const same =
      row.span_id === record.span_id &&
      String(row.span_start_time_unix_nano) === record.span_start_time_unix_nano &&
      row.cost === record.cost &&
      JSON.stringify(JSON.parse(row.span_attributes as string)) === JSON.stringify(record.span_attributes);
    if (!same) throw new Error(`${file}: row ${index} differs from its record`);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  if (options.child) return child(options.child, options.cache!, options.out!);
  const cache = join(tmpdir(), `spanledger-bench-parquet-${RECORDS}.ndjson`);
  const script = fileURLToPath(import.meta.url);
  console.error(`generating ${RECORDS} span records …`);
  const { ndjsonBytes, gzipBytes } = generate(cache);
  const records = await load(cache);
  const candidates: Candidate[] = [];
  for (const candidate of CANDIDATES) {
    if (await installed(candidate)) candidates.push(candidate);
    else console.error(`${candidate.name}: ${candidate.needs} is not installed, skipped`);
  }
  const runs = new Map<string, Result[]>(candidates.map((candidate) => [candidate.name, []]));
  // Rounds in a rotating order, so that whatever else runs on the machine weighs on each alike.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let turn = 0; turn < candidates.length; turn += 1) {
      const candidate = candidates[(round + turn) % candidates.length];
      const outFile = join(tmpdir(), `spanledger-bench-${candidate.name}.parquet`);
      console.error(`round ${round + 1}: ${candidate.name} …`);
      const output = execFileSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', script, '--child', candidate.name, '--cache', cache, '--out', outFile, '--batch', String(BATCH)],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      const result = JSON.parse(output.trim().split('\n').at(-1)!) as Result;
      if (statSync(outFile).size !== result.bytes) throw new Error(`${outFile}: size differs`);
      if (round === 0) await verify(outFile, records);
      rmSync(outFile);
      runs.get(candidate.name)!.push(result);
    }
  }
  rmSync(cache);
  const perRecord = (bytes: number) => (bytes / RECORDS).toFixed(0);
  const rate = (seconds: number) => Math.round(RECORDS / seconds).toLocaleString('en');
  const lines = [
    `${RECORDS} span records, row groups of ${BATCH}, median of ${ROUNDS} rounds; node ${process.version}`,
    '',
    '| encoder | library | codec | records/s | records per CPU-second | bytes/record | peak memory (MB) | resumable footer |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...candidates.map((candidate) => {
      const results = runs.get(candidate.name)!;
      const cells = [
        candidate.name,
        candidate.library,
        candidate.codec,
        rate(median(results.map((result) => result.seconds))),
        rate(median(results.map((result) => result.cpuSeconds))),
        perRecord(results[0].bytes),
        (median(results.map((result) => result.peakBytes)) / 1e6).toFixed(0),
        candidate.resumable,
      ];
      return `| ${cells.join(' | ')} |`;
    }),
    `| NDJSON | exactJson | none | | | ${perRecord(ndjsonBytes)} | | |`,
    `| NDJSON | exactJson | gzip (level 6) | | | ${perRecord(gzipBytes)} | | |`,
    '',
    ...[...runs.values()]
      .map((results) => results[0])
      .filter((result) => result.extra.finalStateBytes)
      .map(
        (result) =>
          `${result.candidate}: state after the last batch ${result.extra.finalStateBytes} bytes of JSON (${(result.extra.finalStateBytes / Math.ceil(RECORDS / BATCH)).toFixed(0)} per row group)`,
      ),
  ];
  console.log(lines.join('\n'));
}

await main();
