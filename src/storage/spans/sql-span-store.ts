// The span store on SQLite and MariaDB/MySQL: the span tables and the derived structures kept
// through the seam (README.md), each operation one module of the folders beside this one.
import type { Knex } from 'knex';
import type { SpanStore } from './span-store.js';
import { analyticsRows } from './reads/analytics-reads.js';
import {
  countSeqsBetween,
  latestSeq,
  recentSpans,
  seqsBetween,
  spansAfter,
  spansBySeq,
  spansInRanges,
  unclaimedBetween,
} from './reads/live-reads.js';
import { traceMetricRanks } from './reads/metric-ranks.js';
import { findSpans, snapshotSpans } from './reads/span-pages.js';
import { findTraceDetail } from './traces/trace-detail.js';
import { findTraces, snapshotTraces } from './traces/trace-pages.js';
import { purgeBatch } from './writes/span-purge.js';
import { storeSpans } from './writes/span-writer.js';

export function sqlSpanStore(knex: Knex): SpanStore {
  return {
    store: (rows, options) => storeSpans(knex, rows, options),
    spanPage: (query) => findSpans(knex, query),
    tracePage: (query) => findTraces(knex, query),
    snapshotSpans: (query) => snapshotSpans(knex, query),
    snapshotTraces: (query) => snapshotTraces(knex, query),
    trace: (request) => findTraceDetail(knex, request),
    metrics: (request, plan) => traceMetricRanks(knex, request, plan),
    analytics: (request, plan) => analyticsRows(knex, request, plan),
    recentSpans: (query) => recentSpans(knex, query),
    live: (applicationId) => ({
      latestSeq: () => latestSeq(knex, applicationId),
      seqsBetween: (after, upTo, limit) => seqsBetween(knex, applicationId, after, upTo, limit),
      countBetween: (after, upTo) => countSeqsBetween(knex, applicationId, after, upTo),
      spansBySeq: (seqs) => spansBySeq(knex, applicationId, seqs),
      spansAfter: (after, limit) => spansAfter(knex, applicationId, after, limit),
      unclaimedBetween: (after, upTo) => unclaimedBetween(knex, applicationId, after, upTo),
      spansInRanges: (ranges) => spansInRanges(knex, applicationId, ranges),
    }),
    purge: (batch) => purgeBatch(knex, batch),
  };
}
