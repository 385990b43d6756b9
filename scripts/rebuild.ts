// `npm run rebuild`: rebuilds the tables derived from the spans (src/storage/spans/derived/,
// README "Rebuilding derived data") from the stored spans, one application and one hour of span
// start time per transaction, printing a line per hour:
//   npm run rebuild -- [--application <id>] [--from <RFC 3339>] [--to <RFC 3339>] [--structure <name>]...
// Without --application every application; without --from/--to every hour the spans or the
// structures hold (the bounds given are rounded out to whole hours); without --structure every
// structure, in the seam's order. Interrupted, it goes on where it stopped when run again with the
// same arguments (the progress is kept in the database). Bad arguments: one line, exit code 1.
import { parseArgs } from 'node:util';
import { rfc3339ToNanos } from '../src/request/time-window.js';
import { DERIVED_STRUCTURES } from '../src/storage/spans/derived/derived-structures.js';
import { rebuildDerivedData, type RebuildOptions } from '../src/storage/spans/derived/derived-rebuild.js';
import { runDatabaseCommand } from './lib/database-command.js';

/** An argument the operator fixes: said in one line, exit code 1. */
class BadArguments extends Error {}

function instant(option: string, text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  try {
    return rfc3339ToNanos(text);
  } catch {
    throw new BadArguments(`--${option} ${JSON.stringify(text)} is not an RFC 3339 date-time (for example 2026-01-31T08:00:00Z)`);
  }
}

function options(): RebuildOptions {
  let values: { application?: string; from?: string; to?: string; structure?: string[] };
  try {
    ({ values } = parseArgs({
      options: {
        application: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        structure: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new BadArguments(`${(error as Error).message.split('\n')[0]} (options: --application, --from, --to, --structure)`);
  }
  const fromNs = instant('from', values.from);
  const toNs = instant('to', values.to);
  if (fromNs !== undefined && toNs !== undefined && toNs <= fromNs) throw new BadArguments('--to must be after --from');
  if (values.application === '') throw new BadArguments('--application needs an application id');
  const names = DERIVED_STRUCTURES.map((structure) => structure.name);
  const unknown = (values.structure ?? []).find((name) => !names.includes(name));
  if (unknown !== undefined) throw new BadArguments(`unknown structure ${JSON.stringify(unknown)} (one of: ${names.join(', ')})`);
  const structures = values.structure && DERIVED_STRUCTURES.filter((structure) => values.structure?.includes(structure.name));
  return { applicationId: values.application, fromNs, toNs, structures };
}

let chosen: RebuildOptions;
try {
  chosen = options();
} catch (error) {
  if (!(error instanceof BadArguments)) throw error;
  console.error(error.message);
  process.exit(1);
}

const hourText = (startNs: bigint) => new Date(Number(startNs / 1_000_000n)).toISOString().replace('.000Z', 'Z');

await runDatabaseCommand(async (knex) => {
  const started = performance.now();
  const outcome = await rebuildDerivedData(knex, {
    ...chosen,
    onResume: ({ applicationId, startNs }) =>
      console.log(`going on after ${applicationId} ${hourText(startNs)}, where an earlier run stopped`),
    onHour: ({ applicationId, startNs, traces, elapsedMs }) =>
      console.log(`${applicationId} ${hourText(startNs)}: rebuilt (${traces} traces, ${elapsedMs.toFixed(0)} ms)`),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`rebuilt ${outcome.hours} hours in ${seconds} s`);
});
