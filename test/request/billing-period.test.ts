// The billing period of a FOCUS export (src/request/billing-period.ts), table-driven: a UTC
// calendar month, none that has not begun.
import { expect } from 'chai';
import { RequestValidationError } from '../../src/errors.js';
import { billingPeriod } from '../../src/request/billing-period.js';

const NOW = Date.UTC(2026, 10, 28, 12);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;

const MONTHS: Array<[string, number, number]> = [
  ['2026-10', Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)],
  ['2026-11', Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1)],
  ['2025-12', Date.UTC(2025, 11, 1), Date.UTC(2026, 0, 1)],
  ['2024-02', Date.UTC(2024, 1, 1), Date.UTC(2024, 2, 1)],
];

const REFUSED = ['2026-12', '2027-01', '2026-13', '2026-00', '2026-1', '2026-10-01', 'october', ''];

describe('billing period', () => {
  for (const [text, start, end] of MONTHS)
    it(`${text} is [${new Date(start).toISOString()}, ${new Date(end).toISOString()})`, () =>
      expect(billingPeriod(text, NOW)).to.deep.equal({ startNs: ns(start), endNs: ns(end), month: text }));

  for (const text of REFUSED)
    it(`refuses ${JSON.stringify(text)} at ["query","billing_period"]`, () => {
      try {
        billingPeriod(text, NOW);
        expect.fail('accepted');
      } catch (error) {
        expect(error).to.be.instanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues.map((issue) => issue.loc)).to.deep.equal([['query', 'billing_period']]);
      }
    });
});
