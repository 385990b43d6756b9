// The effective price (src/pricing/effective-price.ts): the organization's entry in force, else the
// default book's unit prices as the package's match gives them (the tier of the first token, a
// cache price the book lacks as the input price), else the reason.
import { expect } from 'chai';
import { effectivePrice } from '../../src/pricing/effective-price.js';
import { DEFAULT_PRICE_BOOK } from '../../src/pricing/default-price-book.js';
import { NO_PRICE_ENTRIES, OrganizationPrices, type PriceEntry } from '../../src/pricing/price-entries.js';

const AT = Date.UTC(2026, 10, 22);

const ENTRY: PriceEntry = {
  id: 'pe_00000000000000000001',
  provider: 'openai',
  model: 'gpt-4o*',
  input_price: 0.14,
  output_price: 0.55,
  cache_read_price: null,
  cache_creation_price: null,
  request_price: null,
  currency: 'EUR',
  valid_from: AT,
  valid_to: null,
};

describe('effective price', () => {
  it("answers the organization's entry in force", () => {
    expect(effectivePrice(new OrganizationPrices([ENTRY]), 'gpt-4o-mini', 'openai', AT)).to.deep.equal({ source: 'entry', entry: ENTRY });
  });

  it("answers the book's unit prices where no entry is in force, a cache price it lacks as the input price", () => {
    expect(effectivePrice(new OrganizationPrices([ENTRY]), 'gpt-4o-mini', 'openai', AT - 1)).to.deep.equal({
      source: 'default_book',
      prices: {
        model: 'gpt-4o-mini',
        provider: 'openai',
        book: DEFAULT_PRICE_BOOK,
        input: 0.15,
        output: 0.6,
        cache_read: 0.075,
        cache_creation: 0.15,
        request: null,
      },
    });
  });

  it("answers the first token's tier of a tiered price, and the book's cache writes", () => {
    const gemini = effectivePrice(NO_PRICE_ENTRIES, 'gemini-2.5-pro', 'gcp.vertex_ai', AT);
    expect(gemini).to.deep.include({ source: 'default_book' });
    expect(gemini.source === 'default_book' && gemini.prices).to.include({
      provider: 'google',
      input: 1.25,
      output: 10,
      cache_read: 0.125,
    });
    const haiku = effectivePrice(NO_PRICE_ENTRIES, 'claude-3-5-haiku-20241022', 'anthropic', AT);
    expect(haiku.source === 'default_book' && haiku.prices).to.include({
      model: 'claude-3-5-haiku-latest',
      input: 0.8,
      cache_read: 0.08,
      cache_creation: 1,
      output: 4,
    });
  });

  it("answers the book's per-request price per call (its price per thousand requests / 1000)", () => {
    const sonar = effectivePrice(NO_PRICE_ENTRIES, 'sonar', 'perplexity', AT);
    expect(sonar.source === 'default_book' && sonar.prices).to.include({ provider: 'perplexity', input: 1, output: 1, request: 0.012 });
  });

  it('says why there is no price: an unknown model, or entries that are not in force', () => {
    expect(effectivePrice(NO_PRICE_ENTRIES, 'acme-unreleased-1', null, AT)).to.deep.equal({ source: null, reason: 'unknown_model' });
    const future = new OrganizationPrices([{ ...ENTRY, provider: null, model: 'acme-*' }]);
    expect(effectivePrice(future, 'acme-unreleased-1', null, AT - 1)).to.deep.equal({ source: null, reason: 'no_price_in_force' });
  });
});
