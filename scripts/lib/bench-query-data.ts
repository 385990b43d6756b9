// Where the query bench's data (bench-query-workload.ts) lives and when it is seeded again, shared
// by the benches that read it (bench:query, bench:export) so that they share one seeded database.
//
// On MariaDB/MySQL the data is kept between runs in BENCH_QUERY_DATABASE (spanledger_bench_query
// for the default scale, spanledger_bench_query_<spans> for another); it is dropped, migrated and
// seeded again when it does not hold the scale's traces and spans, or with BENCH_RESEED=1. On
// SQLite it is seeded into the file given, once per run.
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { knexSettings } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrations/index.js';
import { foldApplication } from '../../src/storage/spans/fold/trace-folding.js';
import { databaseUrl, log } from './bench-service.js';
import { INDEX_MODEL, MODEL_ATTRIBUTE_PATH, PRIOR_DAYS, seedSpans, type BenchScale } from './bench-query-workload.js';
import { seedApplication, seedOrganization } from './seed-accounts.js';

export const DEFAULT_TRACES_PER_DAY = 100_000;

/** Traces of the main day: BENCH_TRACES, else BENCH_SPANS_PER_DAY / 10, else BENCH_SCALE (1m, 10m), else 100,000. */
export function tracesPerDay(): number {
  const { BENCH_TRACES, BENCH_SPANS_PER_DAY, BENCH_SCALE } = process.env;
  let traces = DEFAULT_TRACES_PER_DAY;
  if (BENCH_TRACES) traces = Number(BENCH_TRACES);
  else if (BENCH_SPANS_PER_DAY) traces = Number(BENCH_SPANS_PER_DAY) / 10;
  else if (BENCH_SCALE) {
    const scales: Record<string, number> = { '1m': 100_000, '10m': 1_000_000 };
    const scaled = scales[BENCH_SCALE.toLowerCase()];
    if (scaled === undefined) throw new Error(`BENCH_SCALE is 1m or 10m (spans a day), not ${BENCH_SCALE}`);
    traces = scaled;
  }
  if (!Number.isInteger(traces) || traces < 1)
    throw new Error('the main day needs a whole, positive number of traces (BENCH_SPANS_PER_DAY a multiple of 10)');
  return traces;
}

/** The default scale keeps the database it always had; another scale gets its own, named by its spans a day. */
export function defaultDatabase(traces: number): string {
  if (traces === DEFAULT_TRACES_PER_DAY) return 'spanledger_bench_query';
  const spans = traces * 10;
  const label = spans % 1_000_000 === 0 ? `${spans / 1_000_000}m` : spans % 1000 === 0 ? `${spans / 1000}k` : String(spans);
  return `spanledger_bench_query_${label}`;
}

/** A Knex of database `url` on MariaDB/MySQL, with at most `connections` connections. */
export function mysqlKnex(url: string, connections = 1): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true, charset: 'utf8mb4' } as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: connections },
  });
}

/**
 * The bench's application when the database already holds every trace and span of the scale (the
 * main day and the days before it). Counted from the trace summaries, which the span writer keeps
 * in the same transactions as the spans: COUNT(*) over 16 million spans would take a minute or more.
 */
async function seededApplication(knex: Knex, scale: BenchScale): Promise<string | undefined> {
  if (process.env.BENCH_RESEED === '1' || !(await knex.schema.hasTable('applications'))) return undefined;
  // Seeded before applications could index attributes: seeded again.
  if (!(await knex.schema.hasColumn('applications', 'indexed_attributes_state'))) return undefined;
  const existing = (await knex('applications').where({ name: 'bench:query' }).first('id', 'indexed_attributes_state')) as
    { id: string; indexed_attributes_state: string | null } | undefined;
  if (!existing) return undefined;
  // Data seeded with the model indexed or not, as this run asks (BENCH_INDEX_MODEL).
  if ((existing.indexed_attributes_state ?? '').includes(MODEL_ATTRIBUTE_PATH) !== INDEX_MODEL) return undefined;
  const [stored] = (await knex('traces')
    .where('application_id', existing.id)
    .select(knex.raw('COUNT(*) AS traces, SUM(spans_count) AS spans'))) as Array<{
    traces: number | string;
    spans: number | string | null;
  }>;
  return Number(stored?.traces) === scale.totalTraces && Number(stored?.spans) === scale.totalSpans ? existing.id : undefined;
}

/** The bench's organization and application (the name is how seededApplication() finds it again). */
async function createApplication(knex: Knex): Promise<string> {
  return seedApplication(knex, await seedOrganization(knex, { name: 'Bench' }), {
    name: 'bench:query',
    indexedAttributes: INDEX_MODEL ? [MODEL_ATTRIBUTE_PATH] : [],
  });
}

/** Seeds the scale into `knex`'s freshly migrated database; answers the bench application. */
async function seedInto(knex: Knex, scale: BenchScale, where: string): Promise<string> {
  const applicationId = await createApplication(knex);
  log(
    `seeding ${scale.tracesPerDay * 10} spans in ${scale.tracesPerDay} traces over the main day and ` +
      `${scale.totalSpans - scale.tracesPerDay * 10} over the ${PRIOR_DAYS} days before into ${where} …`,
  );
  const started = performance.now();
  await seedSpans(knex, applicationId, scale);
  log(`  seeded in ${Math.round((performance.now() - started) / 1000)} s`);
  return applicationId;
}

/** The trace fold files what is pending, as the service does in the background; its time shows here. */
async function foldPending(knex: Knex, applicationId: string): Promise<void> {
  const folding = performance.now();
  const folded = await foldApplication(knex, applicationId, 5000);
  log(`filed ${folded} pending trace summaries in ${Math.round((performance.now() - folding) / 1000)} s`);
}

export interface BenchData {
  knex: Knex;
  /** The URL the service is given for the same database. */
  url: string;
  applicationId: string;
}

/** The bench data in `database` on the MariaDB/MySQL server of `serverUrl`: reused when whole, else seeded anew; every trace filed. */
export async function mysqlBenchData(serverUrl: string, database: string, scale: BenchScale, connections = 8): Promise<BenchData> {
  const url = databaseUrl(serverUrl, database);
  const admin = mysqlKnex(serverUrl);
  try {
    await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    let knex = mysqlKnex(url, connections);
    let applicationId = await seededApplication(knex, scale);
    if (applicationId) {
      // Migrated in place: a migration that rolls up stored spans shows its time here.
      const migrating = performance.now();
      await migrateToLatest(knex);
      log(
        `reusing the ${scale.totalSpans} spans already in ${database} (BENCH_RESEED=1 to rebuild); migrations took ${Math.round((performance.now() - migrating) / 1000)} s`,
      );
    } else {
      // A fresh database: the current migrations, and no leftovers to delete.
      await knex.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.raw(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      knex = mysqlKnex(url, connections);
      await migrateToLatest(knex);
      applicationId = await seedInto(knex, scale, database);
    }
    await foldPending(knex, applicationId);
    return { knex, url, applicationId };
  } finally {
    await admin.destroy();
  }
}

/** The bench data seeded into a new SQLite file `filename` (its directory holds nothing else); every trace filed. */
export async function sqliteBenchData(filename: string, scale: BenchScale): Promise<BenchData> {
  const url = `sqlite:${filename}`;
  const knex = knexFactory(knexSettings(url, path.dirname(filename)));
  await migrateToLatest(knex);
  const applicationId = await seedInto(knex, scale, filename);
  await foldPending(knex, applicationId);
  return { knex, url, applicationId };
}
