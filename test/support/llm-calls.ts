// Attribute maps of LLM calls the price book prices or not, for the property tests: a known
// model of two providers (test/support/price-reference.ts) or an unknown one, with the model's
// provider, none, or a provider text the book does not know; token counts of either convention,
// the cached ones mostly within the input count, now and then above it; or a model without
// tokens, tokens without a model, a total alone.
import fc from 'fast-check';
import { KNOWN_MODELS, UNKNOWN_MODEL } from './price-reference.js';

const count = fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 2_000_000_000 }));
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 4 });

const KEYS = {
  genai: {
    model: 'gen_ai.response.model',
    provider: 'gen_ai.provider.name',
    input: 'gen_ai.usage.input_tokens',
    output: 'gen_ai.usage.output_tokens',
    cache_read: 'gen_ai.usage.cache_read.input_tokens',
    cache_creation: 'gen_ai.usage.cache_creation.input_tokens',
    total: 'gen_ai.usage.total_tokens',
  },
  openinference: {
    model: 'llm.model_name',
    provider: 'llm.provider',
    input: 'llm.token_count.prompt',
    output: 'llm.token_count.completion',
    cache_read: 'llm.token_count.prompt_details.cache_read',
    cache_creation: 'llm.token_count.prompt_details.cache_write',
    total: 'llm.token_count.total',
  },
} as const;

/** The cached counts of an input count: within it (mostly), or the cache reads above it. */
function cachedOf(input: number | undefined) {
  const within = fc
    .integer({ min: 0, max: input ?? 0 })
    .chain((read) =>
      fc.record({ cache_read: maybe(fc.constant(read)), cache_creation: maybe(fc.integer({ min: 0, max: (input ?? 0) - read })) }),
    );
  const above = fc.record({ cache_read: fc.constant((input ?? 0) + 1), cache_creation: maybe(fc.nat({ max: 10 })) });
  return fc.oneof({ weight: 6, arbitrary: within }, { weight: 1, arbitrary: above });
}

export const llmCallAttributes: fc.Arbitrary<Record<string, string | number>> = fc
  .record({
    convention: fc.constantFrom('genai', 'openinference') as fc.Arbitrary<keyof typeof KEYS>,
    known: fc.constantFrom(...KNOWN_MODELS, { model: UNKNOWN_MODEL, provider: 'openai' }),
    model: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    provider: fc.constantFrom('own', 'none', 'unknown'),
    input: maybe(count),
    output: maybe(count),
    total: maybe(count),
  })
  .chain((drawn) => cachedOf(drawn.input).map((cached) => ({ ...drawn, ...cached })))
  .map(({ convention, known, model, provider, input, output, total, cache_read, cache_creation }) => {
    const keys = KEYS[convention];
    const attributes: Record<string, string | number> = {};
    if (model) attributes[keys.model] = known.model;
    if (provider === 'own') attributes[keys.provider] = known.provider;
    if (provider === 'unknown') attributes[keys.provider] = 'acme-cloud';
    for (const [field, value] of Object.entries({ input, output, cache_read, cache_creation, total }))
      if (value !== undefined) attributes[keys[field as keyof typeof keys]] = value;
    return attributes;
  });
