// Random spans for the spend tests (summaries, FOCUS export): services, models, providers, SKUs,
// resource types, token counts, reported and computed costs in three currencies (some too small
// for String() to write without an exponent), unpriced LLM calls, traces of four spans whose root
// is the first, except in every fifth trace, whose root was never sent.
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { spanRow } from './span-rows.js';

const DAY_MS = 86_400_000;

/** `count` spans of the application starting over `days` days from `firstMs` (at sub-millisecond instants); `salt` keeps ids apart. */
export function randomSpendSpans(
  applicationId: string,
  count: number,
  next: () => number,
  salt: string,
  { firstMs, days }: { firstMs: number; days: number },
): SpanRow[] {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const tokens = () => (next() < 0.2 ? null : Math.floor(next() * 5000));
  return Array.from({ length: count }, (_, index) => {
    const startNs = (BigInt(firstMs + Math.floor(next() * days * DAY_MS)) * 1_000_000n + BigInt(Math.floor(next() * 1e6))).toString();
    const kind = pick(['none', 'reported', 'computed', 'computed', 'unpriced'] as const);
    const model = kind === 'unpriced' && next() < 0.3 ? null : pick(['gpt-4o', 'claude-3', 'ünïcode', null]);
    const cost = kind === 'reported' || kind === 'computed' ? (next() < 0.1 ? 1e-9 : Math.round(next() * 1e6) / 1e4) : null;
    return spanRow({
      application_id: applicationId,
      trace_id: `${salt}${Math.floor(index / 4)}`.padStart(32, '0'),
      span_id: `${salt}${index}`.padStart(16, '0'),
      parent_span_id: index % 4 === 0 && index % 20 !== 0 ? null : `${salt}p${index}`.padStart(16, '0'),
      start_time_unix_nano: startNs,
      end_time_unix_nano: (BigInt(startNs) + 1_000_000n).toString(),
      duration_ms: 1,
      service_name: pick(['checkout', 'billing, "eu"', 'search', null]),
      billing_sku_id: pick(['sku-a', 'sku-b', null]),
      billing_resource_type: pick(['llm', 'vm', null]),
      model,
      provider: model === null ? null : pick(['openai', 'anthropic', null]),
      input_tokens: tokens(),
      output_tokens: tokens(),
      cache_read_tokens: tokens(),
      cache_creation_tokens: tokens(),
      total_tokens: tokens(),
      cost,
      cost_source: kind === 'reported' ? 'reported' : kind === 'computed' ? 'computed' : null,
      price_currency: kind === 'computed' ? pick(['USD', 'USD', 'EUR', 'JPY']) : null,
      unpriced_reason: kind === 'unpriced' ? pick(['unknown_model', 'no_usage', 'no_model'] as const) : null,
    });
  });
}
