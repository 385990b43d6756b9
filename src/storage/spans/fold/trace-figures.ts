// What the folded trace figures are made of (src/storage/spans/fold/README.md): the four
// figures of a trace summary, the fine bins their values fall into, the hour of a root's start
// and the root's service as a key. Shared by the fold (trace-folding.ts) and its reads
// (trace-figure-reads.ts), so that both place a value in the same bin.
import { asText } from '../stored-span.js';

/** A trace summary's figures, each with its number in trace_figures and trace_histograms. */
export const TRACE_FIGURES = ['duration_ms', 'total_cost', 'spans_count', 'error_count'] as const;
export type TraceFigure = (typeof TRACE_FIGURES)[number];

/** A summary as the fold folds it and the reads take it in: its root's start and service, and its figures. */
export interface SummaryFigures {
  trace_id: string;
  root_start: string | null;
  service_name: string | null;
  duration_ms: number | string;
  total_cost: number | string;
  spans_count: number | string;
  error_count: number | string;
}

export function figureNumber(figure: TraceFigure): number {
  return TRACE_FIGURES.indexOf(figure);
}

// The planner reads the hours too (src/traces/read-planner.ts): they live in read-sources.ts.
export { HOUR_NS, hourOf } from '../read-sources.js';

/** Each bin spans a factor of BIN_GROWTH: a bin's values differ by at most 1 % of their size. */
const BIN_GROWTH = 1.01;
const LOG_GROWTH = Math.log(BIN_GROWTH);
/** Magnitudes below this share one bin per sign (bin ±1). */
const SMALLEST_BINNED = 1e-9;

/**
 * The fine bin of a value: 0 for zero, ±1 for magnitudes below 1e-9, else ±(2 + ⌊log₁.₀₁(|x| / 1e-9)⌋).
 * Non-decreasing in the value (each step is), so ordering by (bin, value) orders by value, and
 * the rank of a value is found by counting whole bins, then reading inside one.
 */
export function binOf(value: number): number {
  if (value === 0) return 0;
  const magnitude = Math.abs(value);
  const bin = magnitude < SMALLEST_BINNED ? 1 : 2 + Math.floor(Math.log(magnitude / SMALLEST_BINNED) / LOG_GROWTH);
  return value < 0 ? -bin : bin;
}

/** The coarse group of a fine bin (truncating, as SQL integer division does). */
export function binGroupOf(bin: number, binsPerGroup: number): number {
  return Math.trunc(bin / binsPerGroup);
}

/** Fine bins per coarse group: the groups reads with many cells sum, and the span of one origin. */
export const BINS_PER_COARSE_GROUP = 5;

/** The figures whose values are whole numbers: the span and error counts. */
export const WHOLE_FIGURES: readonly number[] = [figureNumber('spans_count'), figureNumber('error_count')];

/**
 * The fine bin of the whole number 100. From 0 to 99 consecutive whole numbers differ by more
 * than 1 %, so each is alone in its bin: below this bin a whole figure's histogram row says
 * which value each of its traces has. The fold folds no trace_figures row for such a value (the
 * trace's duration row carries it, for taking it out), and the reads take its bin as a group of
 * its own, whose value they know without reading.
 */
export const FIRST_SHARED_WHOLE_BIN = binOf(100);

/** Whether a figure's values in this bin are all one value, known from the bin alone. */
export function isSoleValueBin(figure: number, bin: number): boolean {
  return bin < FIRST_SHARED_WHOLE_BIN && WHOLE_FIGURES.includes(figure);
}

/**
 * The group a read sums a figure's bin into: the bin itself when it holds one value, else its
 * group of `binsPerGroup`. The two never share a number: a whole figure's sole-value bins are 0
 * and 2084–2546, its groups from 100 up 509 to 1294 (at 2⁶³).
 */
export function figureGroupOf(figure: number, bin: number, binsPerGroup: number): number {
  return isSoleValueBin(figure, bin) ? bin : binGroupOf(bin, binsPerGroup);
}

/**
 * The value a bin's sums are taken from: the smallest magnitude of its coarse group (0 for the
 * group around zero). The histograms keep Σ(x − origin) and Σ(x − origin)², not Σx and Σx²:
 * values differ from it by at most about 5 %, so that the spread computed from the sums, and
 * the sums after values were taken out, keep their precision (Σx² of a large value taken out
 * of a row would leave rounding noise of that value's size).
 */
export function originOfBin(bin: number): number {
  const group = binGroupOf(bin, BINS_PER_COARSE_GROUP);
  if (group === 0) return 0;
  const magnitude = SMALLEST_BINNED * Math.exp((Math.abs(group) * BINS_PER_COARSE_GROUP - 2) * LOG_GROWTH);
  // A whole number from 1 up: integer figures (span and error counts) then differ from it by
  // whole numbers, so that their sums, n × origin + Σ(x − origin), stay exact.
  const origin = magnitude >= 1 ? Math.round(magnitude) : magnitude;
  return group < 0 ? -origin : origin;
}

/** The longest root service (in UTF-8 bytes) a fold keeps as a key; a trace with a longer one stays unfolded. */
const MAX_SERVICE_BYTES = 254;

/** A root service as the key column holds it: '' for none, '=' and the name otherwise; undefined when too long. */
export function serviceKeyOf(service: string | null): string | undefined {
  if (service === null) return '';
  return Buffer.byteLength(service, 'utf8') <= MAX_SERVICE_BYTES ? `=${service}` : undefined;
}

/** The root service a key stands for (the column comes back as bytes from MariaDB). */
export function serviceOfKey(key: unknown): string | null {
  const text = asText(key);
  return text === '' ? null : text.slice(1);
}

/** Pending summaries a read takes in itself at most (trace-figure-reads.ts); with more (the fold is behind), the caller reads the summaries. */
export const MAX_PENDING = 10_000;

/** traces.folded: the figures are not folded yet (or changed since), are folded, or cannot be (service too long). */
export const FOLD_STATE = { pending: 0, folded: 1, unfoldable: 2 } as const;

export const TRACE_FIGURE_TABLE = 'trace_figures';
export const TRACE_HISTOGRAM_TABLE = 'trace_histograms';
