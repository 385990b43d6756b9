// Organizations' price entries without a database (src/pricing/price-entries.ts): the rules an
// entry's texts keep, when two entries collide, which entry prices a call at a time and in what
// order of precedence, and the cost an entry gives.
import { expect } from 'chai';
import {
  entryPrice,
  isCurrencyCode,
  modelTextProblem,
  NO_PRICE_ENTRIES,
  OrganizationPrices,
  sameTarget,
  windowsOverlap,
  type PriceEntry,
} from '../../src/pricing/price-entries.js';

let ids = 0;
function entry(fields: Partial<PriceEntry> & Pick<PriceEntry, 'model'>): PriceEntry {
  ids += 1;
  return {
    id: `pe_${String(ids).padStart(20, '0')}`,
    provider: null,
    input_price: 1,
    output_price: 2,
    cache_read_price: null,
    cache_creation_price: null,
    request_price: null,
    currency: 'USD',
    valid_from: null,
    valid_to: null,
    ...fields,
  };
}

describe('price entries', () => {
  describe('model texts', () => {
    const CASES: Array<[string, string, boolean]> = [
      ['an exact name', 'gpt-4o-mini', true],
      ['a pattern', 'gpt-4o*', true],
      ['a star alone (every model of the provider)', '*', true],
      ['stars inside', 'claude-*-haiku-*', true],
      ['other characters are literal', 'model?[x]+.(1)', true],
      ['256 characters', 'm'.repeat(256), true],
      ['256 characters outside the BMP (counted as characters)', '😀'.repeat(256), true],
      ['257 characters', 'm'.repeat(257), false],
      ['blank', '   ', false],
      ['a control character', 'gpt\n4o', false],
      ['two stars in a row', 'gpt-**', false],
    ];
    for (const [name, model, valid] of CASES) {
      it(`${valid ? 'takes' : 'refuses'} ${name}`, () => {
        expect(modelTextProblem(model) === undefined, modelTextProblem(model)).to.equal(valid);
      });
    }
  });

  it('knows ISO 4217 codes, in capitals only', () => {
    for (const code of ['USD', 'EUR', 'JPY', 'CHF']) expect(isCurrencyCode(code), code).to.equal(true);
    for (const code of ['usd', 'XYZ', 'EURO', '', 'US']) expect(isCurrencyCode(code), code).to.equal(false);
  });

  describe('collisions', () => {
    it('targets the same calls with the same provider (null equals null) and model text, case-insensitively', () => {
      expect(sameTarget({ provider: 'OpenAI', model: 'GPT-4o*' }, { provider: 'openai', model: 'gpt-4o*' })).to.equal(true);
      expect(sameTarget({ provider: null, model: 'gpt-4o' }, { provider: null, model: 'GPT-4O' })).to.equal(true);
      expect(sameTarget({ provider: null, model: 'gpt-4o' }, { provider: 'openai', model: 'gpt-4o' })).to.equal(false);
      expect(sameTarget({ provider: 'openai', model: 'gpt-4o' }, { provider: 'openai', model: 'gpt-4o*' })).to.equal(false);
    });

    const WINDOWS: Array<[string, [number | null, number | null], [number | null, number | null], boolean]> = [
      ['both unbounded', [null, null], [null, null], true],
      ['one ends where the other starts (valid_to is exclusive)', [null, 100], [100, null], false],
      ['one ends a millisecond after the other starts', [null, 101], [100, null], true],
      ['disjoint', [0, 10], [20, 30], false],
      ['nested', [0, 100], [10, 20], true],
      ['an open end over a later start', [50, null], [100, 200], true],
      ['an open start under an earlier end', [null, 50], [100, 200], false],
    ];
    for (const [name, [aFrom, aTo], [bFrom, bTo], want] of WINDOWS) {
      it(`${want ? 'overlaps' : 'does not overlap'}: ${name}`, () => {
        const a = { valid_from: aFrom, valid_to: aTo };
        const b = { valid_from: bFrom, valid_to: bTo };
        expect(windowsOverlap(a, b)).to.equal(want);
        expect(windowsOverlap(b, a)).to.equal(want);
      });
    }
  });

  describe('matching', () => {
    const id = (prices: OrganizationPrices, model: string, provider: string | null, at = 0) => {
      const match = prices.match(model, provider, at);
      return match.entry === null
        ? match.elsewhere
          ? 'elsewhere'
          : 'none'
        : match.entry.model + (match.entry.provider ? `@${match.entry.provider}` : '');
    };

    it('matches an exact model and provider case-insensitively', () => {
      const prices = new OrganizationPrices([entry({ provider: 'OpenAI', model: 'GPT-4o-Mini' })]);
      expect(id(prices, 'gpt-4o-mini', 'openai')).to.equal('GPT-4o-Mini@OpenAI');
      expect(id(prices, 'gpt-4o-mini-2024-07-18', 'openai')).to.equal('none');
      expect(id(prices, 'gpt-4o-mini', 'azure')).to.equal('none');
      expect(id(prices, 'gpt-4o-mini', null), 'an entry naming a provider needs the span to name it').to.equal('none');
    });

    it('matches any provider, and a span naming none, with a null provider', () => {
      const prices = new OrganizationPrices([entry({ model: 'llama-3' })]);
      for (const provider of ['vllm', 'OLLAMA', null]) expect(id(prices, 'LLAMA-3', provider), String(provider)).to.equal('llama-3');
    });

    const PATTERNS: Array<[string, string, boolean]> = [
      ['gpt-4o*', 'gpt-4o', true],
      ['gpt-4o*', 'GPT-4o-mini-2024-07-18', true],
      ['gpt-4o*', 'my-gpt-4o', false],
      ['*-mini', 'gpt-4o-mini', true],
      ['*-mini', 'gpt-4o-mini-x', false],
      ['claude-*-haiku*', 'claude-3-5-haiku-20241022', true],
      ['claude-*-haiku*', 'claude-haiku', false],
      ['a*a', 'a', false],
      ['a*a', 'aa', true],
      ['*a*b*a*', 'xaxbxa', true],
      ['*a*b*a*', 'xaxaxb', false],
      ['*', '', true],
      ['model?[x]', 'model?[x]', true],
      ['model?[x]', 'modelA[x]', false],
      ['*.*', 'v1.2', true],
      ['*.*', 'v12', false],
    ];
    for (const [pattern, model, want] of PATTERNS) {
      it(`${pattern} ${want ? 'matches' : 'does not match'} ${JSON.stringify(model)}`, () => {
        expect(id(new OrganizationPrices([entry({ model: pattern })]), model, null)).to.equal(want ? pattern : 'none');
      });
    }

    it('is in force from valid_from (inclusive) to valid_to (exclusive), and says when one matches at another time', () => {
      const prices = new OrganizationPrices([
        entry({ model: 'm', valid_to: 1000 }),
        entry({ model: 'M', valid_from: 2000, valid_to: 3000, input_price: 7 }),
      ]);
      expect(prices.match('m', null, 999).entry?.valid_to).to.equal(1000);
      expect(prices.match('m', null, 1000)).to.deep.equal({ entry: null, elsewhere: true });
      expect(prices.match('m', null, 1999)).to.deep.equal({ entry: null, elsewhere: true });
      expect(prices.match('m', null, 2000).entry?.input_price).to.equal(7);
      expect(prices.match('m', null, 2999).entry?.input_price).to.equal(7);
      expect(prices.match('m', null, 3000)).to.deep.equal({ entry: null, elsewhere: true });
      expect(prices.match('other', null, 2500)).to.deep.equal({ entry: null, elsewhere: false });
    });

    // Each row: the entries, and which one prices gpt-4o-mini of openai.
    const PRECEDENCE: Array<[string, Array<Partial<PriceEntry> & Pick<PriceEntry, 'model'>>, string]> = [
      ['a named provider beats a null one', [{ model: 'gpt-4o-mini' }, { provider: 'openai', model: 'gpt-*' }], 'gpt-*@openai'],
      ['an exact model beats a pattern', [{ model: 'gpt-4o*' }, { model: 'gpt-4o-mini' }], 'gpt-4o-mini'],
      ['more literal characters beat fewer', [{ model: 'gpt-*' }, { model: 'gpt-4o*' }, { model: '*' }], 'gpt-4o*'],
      [
        'a tie of literals goes to the smaller model text',
        [{ model: 'gpt-4o*' }, { model: '*4o-mini' }, { model: 'gpt*mini' }],
        '*4o-mini',
      ],
      ['not in force does not compete', [{ model: 'gpt-4o-mini', valid_to: -1 }, { model: 'gpt*' }], 'gpt*'],
    ];
    for (const [name, entries, want] of PRECEDENCE) {
      it(`orders by precedence: ${name}`, () => {
        // The same answer whatever order the entries come in.
        for (const order of [entries, [...entries].reverse()]) {
          expect(id(new OrganizationPrices(order.map(entry)), 'gpt-4o-mini', 'openai')).to.equal(want);
        }
      });
    }

    it('answers an organization without entries with no match', () => {
      expect(NO_PRICE_ENTRIES.match('gpt-4o-mini', 'openai', 0)).to.deep.equal({ entry: null, elsewhere: false });
    });
  });

  describe('cost', () => {
    const usage = (input: number, output: number, cache_read: number | null = null, cache_creation: number | null = null) => ({
      input,
      output,
      cache_read,
      cache_creation,
    });
    const CASES: Array<[string, Partial<PriceEntry>, ReturnType<typeof usage>, number | null]> = [
      ['input and output', { input_price: 0.5, output_price: 1.5 }, usage(2_000_000, 1_000_000), 2.5],
      ['cached tokens without their own prices cost as input', { input_price: 1, output_price: 0 }, usage(1000, 0, 300, 200), 0.001],
      [
        'cached tokens at their own prices',
        { input_price: 1, cache_read_price: 0.1, cache_creation_price: 1.25, output_price: 4 },
        usage(1000, 500, 300, 200),
        (500 * 1 + 300 * 0.1 + 200 * 1.25 + 500 * 4) / 1e6,
      ],
      ['a per-call price', { input_price: 1, output_price: 1, request_price: 0.002 }, usage(0, 1000), 0.003],
      ['a per-call price with no tokens priced', { input_price: 0, output_price: 0, request_price: 0.01 }, usage(0, 0), 0.01],
      ['15 significant digits', { input_price: 0.1, output_price: 0.2 }, usage(1, 1), 3e-7],
      ['cache reads above the input', {}, usage(10, 0, 11), null],
      ['cache reads and writes together above the input', {}, usage(10, 0, 6, 5), null],
    ];
    for (const [name, prices, counts, want] of CASES) {
      it(name, () => {
        const got = entryPrice(entry({ model: 'm', ...prices }), counts);
        if (want === null) expect(got).to.deep.equal({ priced: false, reason: 'invalid_usage' });
        else expect(got).to.deep.equal({ priced: true, cost: Number(want.toPrecision(15)) });
      });
    }
  });
});
