// The Range and If-Range headers of an export's download (src/exports/byte-ranges.ts), table by
// table: one range honoured, clamped to the file; a start past the end (and a zero suffix, and
// any range of an empty file) unsatisfiable; several ranges, other units, unreadable values and a
// stale If-Range answered with the whole file.
import { expect } from 'chai';
import { byteRange, type ByteRange } from '../../src/exports/byte-ranges.js';

const ETAG = '"exp_x-1000"';
const range = (start: number, end: number): ByteRange => ({ kind: 'range', start, end });
const WHOLE: ByteRange = { kind: 'whole' };
const UNSATISFIABLE: ByteRange = { kind: 'unsatisfiable' };

describe('byteRange', () => {
  const cases: Array<[string, { range?: string; ifRange?: string; size?: number }, ByteRange]> = [
    ['no Range', {}, WHOLE],
    ['first and last', { range: 'bytes=0-99' }, range(0, 99)],
    ['one byte', { range: 'bytes=999-999' }, range(999, 999)],
    ['open end', { range: 'bytes=500-' }, range(500, 999)],
    ['last past the end, clamped', { range: 'bytes=990-5000' }, range(990, 999)],
    ['suffix', { range: 'bytes=-100' }, range(900, 999)],
    ['suffix longer than the file', { range: 'bytes=-5000' }, range(0, 999)],
    ['unit in capitals, spaces', { range: ' BYTES = 1-2 ' }, range(1, 2)],
    ['a trailing comma', { range: 'bytes=1-2,' }, range(1, 2)],
    ['start at the end', { range: 'bytes=1000-' }, UNSATISFIABLE],
    ['start past the end', { range: 'bytes=2000-3000' }, UNSATISFIABLE],
    ['zero suffix', { range: 'bytes=-0' }, UNSATISFIABLE],
    ['any range of an empty file', { range: 'bytes=0-', size: 0 }, UNSATISFIABLE],
    ['suffix of an empty file', { range: 'bytes=-5', size: 0 }, UNSATISFIABLE],
    ['several ranges', { range: 'bytes=0-1,5-9' }, WHOLE],
    ['last before first', { range: 'bytes=9-5' }, WHOLE],
    ['another unit', { range: 'items=0-5' }, WHOLE],
    ['no digits', { range: 'bytes=a-b' }, WHOLE],
    ['no range at all', { range: 'bytes=' }, WHOLE],
    ['a bare dash', { range: 'bytes=-' }, WHOLE],
    ['a negative start', { range: 'bytes=--5' }, WHOLE],
    ['If-Range of the file', { range: 'bytes=0-9', ifRange: ETAG }, range(0, 9)],
    ['If-Range of another version', { range: 'bytes=0-9', ifRange: '"exp_x-999"' }, WHOLE],
    ['If-Range weak', { range: 'bytes=0-9', ifRange: `W/${ETAG}` }, WHOLE],
    ['If-Range a date', { range: 'bytes=0-9', ifRange: 'Wed, 21 Oct 2015 07:28:00 GMT' }, WHOLE],
    ['If-Range without Range', { ifRange: ETAG }, WHOLE],
  ];
  for (const [name, given, want] of cases) {
    it(name, () => {
      expect(byteRange(given.range, given.ifRange, ETAG, given.size ?? 1000)).to.deep.equal(want);
    });
  }
});
