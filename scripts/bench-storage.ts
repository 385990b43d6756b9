// `npm run bench:storage`: the disk each span table and derived table takes per stored span, per
// table and per index, on an existing bench database (MariaDB), as the query bench seeded it.
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:storage
//
// BENCH_QUERY_DATABASE names the database (default spanledger_bench_query_10m, the query bench's
// 10m scale). The tables are src/storage/page-compression.ts's SPAN_TABLES. Per index: its pages
// (mysql.innodb_index_stats `size`, after ANALYZE TABLE) × the page size, the primary key being the
// rows themselves; per table also the allocated file size (INNODB_SYS_TABLESPACES), which is the
// only figure that shows page compression (compressed pages keep their logical size and punch
// holes in the file). An index's allocated share is estimated from its table's ratio of allocated
// to logical bytes (marked ≈). Spans are counted from the trace summaries (SUM(spans_count)), as
// the query bench does: COUNT(*) over 16 million spans takes a minute.
import mysql from 'mysql2/promise';
import { SPAN_TABLES } from '../src/storage/page-compression.js';
import { databaseUrl, log } from './lib/bench-service.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const DATABASE = process.env.BENCH_QUERY_DATABASE ?? 'spanledger_bench_query_10m';

interface Row {
  table: string;
  index: string;
  logicalBytes: number;
  allocatedBytes: number;
  estimated: boolean;
}

const MB = 1e6;

function line(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

function figures(row: Row, spans: number): string[] {
  const approx = row.estimated ? '≈ ' : '';
  return [
    (row.logicalBytes / MB).toFixed(0),
    (row.logicalBytes / spans).toFixed(0),
    `${approx}${(row.allocatedBytes / MB).toFixed(0)}`,
    `${approx}${(row.allocatedBytes / spans).toFixed(0)}`,
  ];
}

async function main(): Promise<void> {
  if (!SERVER_URL)
    throw new Error('set BENCH_MYSQL_URL, e.g. mysql://user:password@127.0.0.1:3307/mysql (a server holding the bench database)');
  const db = await mysql.createConnection({ uri: databaseUrl(SERVER_URL, DATABASE), supportBigNumbers: true, bigNumberStrings: true });
  try {
    const [[pageRow]] = (await db.query('SELECT @@innodb_page_size AS page')) as unknown as [Array<{ page: string }>];
    const pageSize = Number(pageRow?.page);
    const [[spanRow]] = (await db.query('SELECT SUM(spans_count) AS spans FROM traces')) as unknown as [Array<{ spans: string | null }>];
    const spans = Number(spanRow?.spans ?? 0);
    if (spans === 0) throw new Error(`${DATABASE} holds no spans: seed it with npm run bench:query first`);
    const [present] = (await db.query(
      'SELECT TABLE_NAME AS name, CREATE_OPTIONS AS options FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?)',
      [DATABASE, [...SPAN_TABLES]],
    )) as unknown as [Array<{ name: string; options: string }>];
    const tables = SPAN_TABLES.filter((table) => present.some((row) => row.name === table));
    log(`analyzing ${tables.length} tables of ${DATABASE} …`);
    for (const table of tables) await db.query(`ANALYZE TABLE \`${table}\``);

    const [indexRows] = (await db.query(
      "SELECT table_name AS tbl, index_name AS idx, stat_value AS pages FROM mysql.innodb_index_stats WHERE database_name = ? AND stat_name = 'size' AND table_name IN (?)",
      [DATABASE, tables],
    )) as unknown as [Array<{ tbl: string; idx: string; pages: string }>];
    const [files] = (await db.query(
      'SELECT NAME AS name, ALLOCATED_SIZE AS allocated FROM information_schema.INNODB_SYS_TABLESPACES WHERE NAME IN (?)',
      [tables.map((table) => `${DATABASE}/${table}`)],
    )) as unknown as [Array<{ name: string; allocated: string }>];

    // Per table: its indexes (the primary key, the rows, first), then the table's total.
    const rows: Row[] = [];
    const totals: Row[] = [];
    for (const table of tables) {
      const indexes = indexRows
        .filter((row) => row.tbl === table)
        .map((row) => ({ index: row.idx, bytes: Number(row.pages) * pageSize }))
        .sort((a, b) => Number(b.index === 'PRIMARY') - Number(a.index === 'PRIMARY') || b.bytes - a.bytes);
      const logical = indexes.reduce((sum, index) => sum + index.bytes, 0);
      const allocated = Number(files.find((file) => file.name === `${DATABASE}/${table}`)?.allocated ?? 0);
      const options = present.find((row) => row.name === table)?.options ?? '';
      const ratio = logical === 0 ? 0 : allocated / logical;
      for (const index of indexes)
        rows.push({ table, index: `\`${index.index}\``, logicalBytes: index.bytes, allocatedBytes: index.bytes * ratio, estimated: true });
      const total = {
        table,
        index: /page_compressed/i.test(options) ? 'all (LZ4 pages)' : 'all',
        logicalBytes: logical,
        allocatedBytes: allocated,
        estimated: false,
      };
      rows.push(total);
      totals.push(total);
    }
    const sum = (list: Row[], key: 'logicalBytes' | 'allocatedBytes') => list.reduce((total, row) => total + row[key], 0);
    const all: Row = {
      table: 'every table',
      index: 'all',
      logicalBytes: sum(totals, 'logicalBytes'),
      allocatedBytes: sum(totals, 'allocatedBytes'),
      estimated: false,
    };
    process.stdout.write(
      [
        `Disk per span, ${DATABASE}: ${spans} spans; MB are 10^6 bytes; pages of ${pageSize} bytes (logical: pages × page size, as information_schema counts them; allocated: the file's blocks):`,
        '',
        line(['table', 'index', 'logical MB', 'logical bytes/span', 'allocated MB', 'allocated bytes/span']),
        line(['---', '---', '---:', '---:', '---:', '---:']),
        ...rows.map((row) => line([`\`${row.table}\``, row.index, ...figures(row, spans)])),
        line([`**${all.table}**`, 'all', ...figures(all, spans).map((figure) => `**${figure}**`)]),
        '',
      ].join('\n'),
    );
  } finally {
    await db.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
