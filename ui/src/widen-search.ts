// What the trace list's empty state offers to widen a search that found nothing (docs/dashboard.md,
// "When no trace matches"): the filter's conditions a root span alone is checked against, and the
// next wider quick range.
import { describeFilter } from './describe-filter';
import { QUICK_RANGES, type QuickRange, type TimeWindow } from './view-query';

export const RANGE_LABELS: Record<QuickRange, string> = {
  '15m': 'the last 15 minutes',
  '1h': 'the last hour',
  '6h': 'the last 6 hours',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
};

/**
 * The conditions of a filter that read a span's own fields, as text: without child-span search
 * the engine checks them against each trace's root span only. `trace.*` fields read the whole
 * trace either way. Takes any JSON, as the URL may hold anything.
 */
export function spanLevelConditions(node: unknown): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
  const fields = node as Record<string, unknown>;
  if (Array.isArray(fields.and)) return fields.and.flatMap(spanLevelConditions);
  if (Array.isArray(fields.or)) return fields.or.flatMap(spanLevelConditions);
  if ('not' in fields) return spanLevelConditions(fields.not);
  if (typeof fields.field !== 'string' || fields.field.startsWith('trace.')) return [];
  return [describeFilter(node)];
}

/** The next longer quick range than the window's (none past the longest, or for an absolute range longer than it). */
export function widerRange(window: TimeWindow): QuickRange | undefined {
  const length = window.end.getTime() - window.start.getTime();
  return (Object.keys(QUICK_RANGES) as QuickRange[]).find((range) => QUICK_RANGES[range] > length);
}
