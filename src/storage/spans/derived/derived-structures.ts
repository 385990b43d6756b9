// The structures derived from the spans (derived-data.ts), in the order the span writer, the
// retention purge and the rebuild call them: the trace summaries first (the fold files them,
// trace slot values copy their times), the roll-ups last (their rows are the ones every writer of
// an application touches, so they stay locked the shortest; the spend roll-ups and spend roll-ups per indexed attribute value, src/storage/spend/, are two of them). The fold has only a rebuild: its job
// files the summaries. Adding a structure is one module here, its migration and its test.
import type { DerivedData } from './derived-data.js';
import { traceFold } from '../fold/trace-folding.js';
import { slotRollups } from '../rollups/slot-rollups.js';
import { spanRollups } from '../rollups/span-rollups.js';
import { spanSlotValues } from '../slots/span-slot-values.js';
import { traceSlotValues } from '../slots/trace-slot-values.js';
import { traceSummaries } from '../traces/trace-summaries.js';
import { spendRollups } from '../../spend/spend-rollups.js';
import { spendSlotRollups } from '../../spend/spend-slot-rollups.js';

export const DERIVED_STRUCTURES: readonly DerivedData[] = [
  traceSummaries,
  traceFold,
  traceSlotValues,
  spanSlotValues,
  spanRollups,
  slotRollups,
  spendRollups,
  spendSlotRollups,
];
