// Filter values as long as a request body allows (~900 KB of a 1 MiB body), and values either
// side of SQLite's GLOB pattern limit, with every string operator on a column and on an
// attribute: 200 on every database, literal and case-sensitive as for short values, multi-byte
// and astral characters included. The reference evaluator must agree with every answer.
import { expect } from 'chai';
import { GLOB_PATTERN_LIMIT } from '../../src/storage/sql/sqlite.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { expectFilterSelects } from '../support/filter-cases.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3_600_000_000_000n) };

// Wildcards and escapes of LIKE and GLOB, case, accents (2 bytes), CJK (3 bytes), astral (4 bytes).
const UNIT = 'aB%_*?[]!\\é日🚀 ';
const repeat = (bytes: number) => UNIT.repeat(Math.ceil(bytes / Buffer.byteLength(UNIT))).slice(0, -1);
/** About 900 KB: with the rest of a request it stays within the 1 MiB body limit. */
const HUGE = repeat(900_000);
// A span_name is TEXT (at most 65,535 bytes on MariaDB): ~60 KB, past GLOB's limit.
const NAME = `${'名'.repeat(20_000)}🚀`;
// `*value*` of exactly GLOB_PATTERN_LIMIT bytes, and one byte more.
const AT_LIMIT = 'x'.repeat(GLOB_PATTERN_LIMIT - 2);
const PAST_LIMIT = `${AT_LIMIT}y`;

const SPANS: Array<{ id: string; name: string; attribute: string | null }> = [
  { id: 'huge', name: 'short', attribute: `head:${HUGE}:tail` },
  { id: 'name', name: NAME, attribute: `${HUGE.slice(0, 1000)}` },
  { id: 'limit', name: AT_LIMIT, attribute: `<${PAST_LIMIT}>` },
  { id: 'case', name: NAME.replace('🚀', '🚁'), attribute: `head:${HUGE.toUpperCase()}:tail` },
  { id: 'pad', name: 'pad', attribute: `${'p'.repeat(1200)} ` },
  { id: 'none', name: '', attribute: null },
];

const hexId = (index: number) => (index + 1).toString(16).padStart(16, '0');
const idOf = new Map(SPANS.map((span, index) => [hexId(index), span.id]));

function rows(applicationId: string): SpanRow[] {
  return SPANS.map((span, index) =>
    spanRow({
      application_id: applicationId,
      trace_id: 'e'.repeat(32),
      span_id: hexId(index),
      start_time_unix_nano: (BASE + BigInt(index)).toString(),
      span_name: span.name,
      span_attributes: span.attribute === null ? null : JSON.stringify({ long: span.attribute }),
    }),
  );
}

const c = (field: string, op: string, value: string) => ({ field, op, value });
const ATTRIBUTE = 'span_attributes.long';

const CASES: Array<[name: string, filter: ReturnType<typeof c>, want: string[]]> = [
  ['attribute contains 900 KB', c(ATTRIBUTE, 'contains', HUGE), ['huge']],
  ['attribute starts_with 900 KB', c(ATTRIBUTE, 'starts_with', `head:${HUGE}`), ['huge']],
  ['attribute ends_with 900 KB', c(ATTRIBUTE, 'ends_with', `${HUGE}:tail`), ['huge']],
  ['attribute ends_with 900 KB, not at the end', c(ATTRIBUTE, 'ends_with', HUGE), []],
  ['attribute starts_with 900 KB, not at the start', c(ATTRIBUTE, 'starts_with', `${HUGE}:tail`), []],
  ['attribute contains 900 KB longer than any text', c(ATTRIBUTE, 'contains', `${HUGE}:tail!`), []],
  ['attribute eq 900 KB', c(ATTRIBUTE, 'eq', `head:${HUGE}:tail`), ['huge']],
  ['attribute neq 900 KB', c(ATTRIBUTE, 'neq', `head:${HUGE}:tail`), ['name', 'limit', 'case', 'pad']],
  ['column contains 900 KB', c('span_name', 'contains', HUGE), []],
  ['column starts_with 900 KB', c('span_name', 'starts_with', HUGE), []],
  ['column ends_with 900 KB', c('span_name', 'ends_with', HUGE), []],
  ['column eq 900 KB', c('span_name', 'eq', HUGE), []],
  ['column neq 900 KB', c('span_name', 'neq', HUGE), ['huge', 'name', 'limit', 'case', 'pad', 'none']],
  ['column starts_with 60 KB of CJK', c('span_name', 'starts_with', NAME.slice(0, -2)), ['name', 'case']],
  ['column ends_with 60 KB ending in an astral character', c('span_name', 'ends_with', NAME.slice(1)), ['name']],
  ['column contains 60 KB, case and astral characters exact', c('span_name', 'contains', NAME.slice(3)), ['name']],
  ['column eq 60 KB', c('span_name', 'eq', NAME), ['name']],
  ['a pattern of exactly the GLOB limit', c('span_name', 'contains', AT_LIMIT), ['limit']],
  ['a pattern one byte past the GLOB limit', c(ATTRIBUTE, 'contains', PAST_LIMIT), ['limit']],
  ['past the limit, starts_with is anchored', c(ATTRIBUTE, 'starts_with', PAST_LIMIT), []],
  ['past the limit, ends_with is anchored', c(ATTRIBUTE, 'ends_with', `${PAST_LIMIT}>`), ['limit']],
  ['past the limit, a value longer than the text', c('span_name', 'ends_with', `y${AT_LIMIT}`), []],
  // Either side of MariaDB's LIKE_VALUE_LIMIT (1000 bytes): trailing spaces are never padding.
  ['contains 1000 bytes', c(ATTRIBUTE, 'contains', 'p'.repeat(1000)), ['pad']],
  ['contains 1001 bytes', c(ATTRIBUTE, 'contains', 'p'.repeat(1001)), ['pad']],
  ['ends_with 1100 bytes before a trailing space', c(ATTRIBUTE, 'ends_with', 'p'.repeat(1100)), []],
  ['ends_with 1100 bytes and the trailing space', c(ATTRIBUTE, 'ends_with', `${'p'.repeat(1100)} `), ['pad']],
  ['starts_with 1200 bytes and two spaces', c(ATTRIBUTE, 'starts_with', `${'p'.repeat(1200)}  `), []],
  ['starts_with 1200 bytes and one space', c(ATTRIBUTE, 'starts_with', `${'p'.repeat(1200)} `), ['pad']],
  ['eq without the trailing space', c(ATTRIBUTE, 'eq', 'p'.repeat(1200)), []],
  ['contains 1002 bytes of 3-byte characters', c('span_name', 'contains', '名'.repeat(334)), ['name', 'case']],
  ['starts_with a 4-byte character past 1000 bytes', c(ATTRIBUTE, 'starts_with', `head:${HUGE.slice(0, 1000)}`), ['huge']],
];

onEachDatabase('long filter values', (app) => {
  let caller: EngineCaller;
  let stored: SpanRow[];
  before(async () => {
    caller = await engineCaller(app());
    stored = rows(caller.appId);
    await storeSpans(app().server.knex, stored);
  });

  it('answers analytics over 900 KB values too, counting what the span query selects', async () => {
    for (const op of ['contains', 'starts_with', 'ends_with', 'eq'] as const) {
      const value =
        op === 'contains' ? HUGE : op === 'starts_with' ? `head:${HUGE}` : op === 'ends_with' ? `${HUGE}:tail` : `head:${HUGE}:tail`;
      const body = { filter: c(ATTRIBUTE, op, value), measures: [{ fn: 'count' }] };
      const response = await call(app().url, 'POST', '/engine/analytics', { query: WINDOW, headers: caller.headers, json: body });
      expect(response.status, `${op}: ${response.text.slice(0, 300)}`).to.equal(200);
      const counted = (response.body.groups as Array<{ points: Array<{ values: number[] }> }>)
        .flatMap((group) => group.points)
        .reduce((sum, point) => sum + (point.values[0] ?? 0), 0);
      expect(counted, op).to.equal(1);
    }
  });

  for (const [name, filter, want] of CASES) {
    it(name, async () => {
      const body = JSON.stringify({ filter });
      expect(Buffer.byteLength(body)).to.be.below(1024 * 1024);
      await expectFilterSelects({ url: app().url, caller, window: WINDOW, stored, labelOf: idOf }, filter, want);
    });
  }
});
