// The structures derived from the spans (derived-data.ts), in the order the span writer and the
// retention purge call them: the trace summaries first (trace slot values copy their times),
// the roll-ups last (their rows are the ones every writer of an application touches, so they
// stay locked the shortest). Adding a structure is one module here, its migration and its test.
import type { DerivedData } from './derived-data.js';
import { slotRollups } from './slot-rollups.js';
import { spanRollups } from './span-rollups.js';
import { traceSlotValues } from './trace-slot-values.js';
import { traceSummaries } from './trace-summaries.js';

export const DERIVED_STRUCTURES: readonly DerivedData[] = [traceSummaries, traceSlotValues, spanRollups, slotRollups];
