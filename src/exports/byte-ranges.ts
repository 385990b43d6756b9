// The Range and If-Range request headers of a download (RFC 9110 §13.1.5, §14): which bytes of a
// file of `size` bytes to send. One range is honoured; several ranges, another unit, a value this
// reading does not understand, or an If-Range that is not the file's current entity tag, send the
// whole file (RFC 9110 lets a server ignore Range); a range starting past the end is unsatisfiable.

export type ByteRange =
  | { kind: 'whole' }
  /** Bytes `start` to `end`, both inclusive. */
  | { kind: 'range'; start: number; end: number }
  | { kind: 'unsatisfiable' };

const WHOLE: ByteRange = { kind: 'whole' };
const UNSATISFIABLE: ByteRange = { kind: 'unsatisfiable' };

// A range-spec: `first-last`, `first-` or `-suffix`, digits only (whitespace around it is trimmed).
const RANGE_SPEC = /^(?:(\d+)-(\d*)|-(\d+))$/;

/**
 * The bytes to send for `range` (the Range header, absent: undefined) of a file of `size` bytes
 * whose entity tag is `etag`, given `ifRange` (the If-Range header).
 */
export function byteRange(range: string | undefined, ifRange: string | undefined, etag: string, size: number): ByteRange {
  if (range === undefined) return WHOLE;
  // A strong comparison; a date, or a weak or older tag, asks for the whole file.
  if (ifRange !== undefined && ifRange.trim() !== etag) return WHOLE;
  const match = /^\s*bytes\s*=(.*)$/i.exec(range);
  if (!match) return WHOLE;
  const specs = (match[1] as string)
    .split(',')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '');
  if (specs.length !== 1) return WHOLE;
  const spec = RANGE_SPEC.exec(specs[0] as string);
  if (!spec) return WHOLE;
  const [, first, last, suffix] = spec;
  if (suffix !== undefined) {
    const length = Number(suffix);
    if (length === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'range', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return WHOLE;
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'range', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
