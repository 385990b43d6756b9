// Which spend roll-up rows answer a read (README.md beside this file): the whole UTC days of each
// window from the day rows, the ragged hours at either end from the hour rows. Pure: the ranges a
// read asks for, table-tested without a database (test/storage/spend/spend-ranges.test.ts).

export const HOUR_S = 3600;
export const DAY_S = 86_400;

/** The widths the table keeps, in key order. */
export const SPEND_WIDTHS_S = [HOUR_S, DAY_S] as const;
export type SpendWidth = (typeof SPEND_WIDTHS_S)[number];

export const HOUR_NS = BigInt(HOUR_S) * 1_000_000_000n;
export const DAY_NS = BigInt(DAY_S) * 1_000_000_000n;

/** The rows of one width whose bucket starts in [fromNs, toNs). */
export interface SpendRange {
  widthS: SpendWidth;
  fromNs: bigint;
  toNs: bigint;
}

/** The start of the UTC day holding a time (floored, also before 1970). */
export function dayStartNs(ns: bigint): bigint {
  const rest = ns % DAY_NS;
  return rest < 0n ? ns - rest - DAY_NS : ns - rest;
}

/** The first UTC midnight at or after a time. */
function dayCeilingNs(ns: bigint): bigint {
  const start = dayStartNs(ns);
  return start === ns ? ns : start + DAY_NS;
}

/**
 * The ranges that cover the windows between consecutive `boundaries` (whole hours, ascending):
 * each window's whole days from day rows, its hours before the first and after the last midnight
 * from hour rows, so that no day row reaches across a boundary. Adjacent ranges of one width are
 * joined; empty ones are left out. In time order.
 */
export function spendRanges(boundaries: readonly bigint[]): SpendRange[] {
  const ranges: SpendRange[] = [];
  const push = (widthS: SpendWidth, fromNs: bigint, toNs: bigint) => {
    if (fromNs >= toNs) return;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.widthS === widthS && last.toNs === fromNs) last.toNs = toNs;
    else ranges.push({ widthS, fromNs, toNs });
  };
  for (let index = 0; index + 1 < boundaries.length; index += 1) {
    const [fromNs, toNs] = [boundaries[index] as bigint, boundaries[index + 1] as bigint];
    const [firstDay, endOfDays] = [dayCeilingNs(fromNs), dayStartNs(toNs)];
    if (firstDay >= endOfDays) {
      push(HOUR_S, fromNs, toNs);
      continue;
    }
    push(HOUR_S, fromNs, firstDay);
    push(DAY_S, firstDay, endOfDays);
    push(HOUR_S, endOfDays, toNs);
  }
  return ranges;
}
