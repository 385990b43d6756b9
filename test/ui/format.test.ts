// The dashboard's formatting, table-driven and without a browser: times in one ISO-like 24-hour
// format with the zone written beside them, in UTC and in local zones either side of it (explicit
// IANA names, so the machine's own zone does not matter); the remembered zone choice; chart axis
// labels; cost columns with one precision, their currency, no float noise and no small cost shown
// as 0; counts with digit grouping.
import { expect } from 'chai';
import { formatCount } from '../../ui/src/metrics-format.js';
import {
  axisTimeLabels,
  formatClock,
  formatDateTime,
  formatDay,
  formatIsoText,
  formatUnixNano,
  inputValue,
  inputZoneLabel,
  instantOfInput,
  textInZone,
  readZoneChoice,
  saveZoneChoice,
  zoneName,
  zoneOf,
  ZONE_STORAGE_KEY,
} from '../../ui/src/time-format.js';
import { costDecimals, formatCost, formatSingleCost, spanCostCurrency } from '../../ui/src/trace-format.js';

// 2026-11-28T14:05:09.123Z
const INSTANT = Date.UTC(2026, 10, 28, 14, 5, 9, 123);

describe('dashboard time format', () => {
  const CASES: Array<[zone: string, options: { ms?: boolean }, want: string]> = [
    ['UTC', {}, '2026-11-28 14:05:09 UTC'],
    ['UTC', { ms: true }, '2026-11-28 14:05:09.123 UTC'],
    ['Europe/Berlin', {}, '2026-11-28 15:05:09 UTC+01:00'],
    ['America/St_Johns', {}, '2026-11-28 10:35:09 UTC-03:30'],
    ['Asia/Kolkata', { ms: true }, '2026-11-28 19:35:09.123 UTC+05:30'],
    // After midnight in the zone: the date is the zone's date.
    ['Pacific/Auckland', {}, '2026-11-29 03:05:09 UTC+13:00'],
    // A zone at UTC's offset is still written UTC.
    ['Europe/London', {}, '2026-11-28 14:05:09 UTC'],
  ];
  for (const [zone, options, want] of CASES) {
    it(`${zone}${options.ms ? ' with ms' : ''}: ${want}`, () => expect(formatDateTime(INSTANT, zone, options)).to.equal(want));
  }

  it('writes 24-hour times (no AM/PM), midnight as 00', () => {
    expect(formatDateTime(Date.UTC(2026, 0, 2, 0, 0, 0), 'UTC')).to.equal('2026-01-02 00:00:00 UTC');
    expect(formatDateTime(Date.UTC(2026, 0, 2, 23, 59, 59), 'UTC')).to.equal('2026-01-02 23:59:59 UTC');
  });

  it('follows daylight saving time: summer offsets differ from winter ones', () =>
    expect(formatDateTime(Date.UTC(2026, 6, 1, 12, 0, 0), 'Europe/Berlin')).to.equal('2026-07-01 14:00:00 UTC+02:00'));

  it('reads RFC 3339 texts and span nanoseconds the same way; text that is no time stays as it came', () => {
    expect(formatIsoText('2026-11-28T14:05:09.123Z', 'UTC')).to.equal('2026-11-28 14:05:09 UTC');
    expect(formatIsoText('2026-11-28T15:05:09+01:00', 'UTC')).to.equal('2026-11-28 14:05:09 UTC');
    expect(formatIsoText('not a time', 'UTC')).to.equal('not a time');
    expect(formatUnixNano(INSTANT * 1e6, 'UTC')).to.equal('2026-11-28 14:05:09.123 UTC');
    expect(formatDateTime(Number.NaN, 'UTC')).to.equal('—');
  });

  it('writes a clock (live list) and a day (daily buckets)', () => {
    expect(formatClock(INSTANT, 'UTC')).to.equal('14:05:09.123 UTC');
    expect(formatClock(INSTANT, 'Europe/Berlin')).to.equal('15:05:09.123 UTC+01:00');
    expect(formatDay(INSTANT, 'Pacific/Auckland')).to.equal('2026-11-29');
  });

  it('names the zone: UTC, or the local zone with its offset', () => {
    expect(zoneName('UTC')).to.equal('UTC');
    expect(zoneName('Europe/Berlin', INSTANT)).to.equal('Europe/Berlin, UTC+01:00');
  });

  it('labels a chart axis in 24-hour times of the zone, with the date when it spans days', () => {
    const hours = [0, 1, 2].map((hour) => Date.UTC(2026, 10, 28, 22 + hour) / 1000);
    expect(axisTimeLabels(hours, 'UTC', false)).to.deep.equal(['22:00', '23:00', '00:00']);
    expect(axisTimeLabels(hours, 'Europe/Berlin', false)).to.deep.equal(['23:00', '00:00', '01:00']);
    const days = [0, 1, 2].map((day) => Date.UTC(2026, 10, 28 + day, 12) / 1000);
    expect(axisTimeLabels(days, 'UTC', false)).to.deep.equal(['11-28 12:00', '11-29 12:00', '11-30 12:00']);
    expect(axisTimeLabels([Date.UTC(2026, 10, 28) / 1000, null], 'UTC', true)).to.deep.equal(['2026-11-28', '']);
  });

  it('fills and reads datetime-local fields in the chosen zone, to the minute (or second)', () => {
    expect(inputValue(INSTANT, 'UTC')).to.equal('2026-11-28T14:05');
    expect(inputValue(INSTANT, 'UTC', { seconds: true })).to.equal('2026-11-28T14:05:09');
    expect(inputValue(INSTANT, 'America/St_Johns')).to.equal('2026-11-28T10:35');
    expect(inputValue(Number.NaN, 'UTC')).to.equal('');
    expect(instantOfInput('2026-11-28T14:05', 'UTC')).to.equal(Date.UTC(2026, 10, 28, 14, 5));
    expect(instantOfInput('2026-11-28T14:05:09', 'UTC')).to.equal(Date.UTC(2026, 10, 28, 14, 5, 9));
    // The browser's own zone (here the test process's): a value read back gives the instant it was written from.
    const minute = Date.UTC(2026, 6, 1, 23, 59);
    expect(instantOfInput(inputValue(minute, undefined), undefined)).to.equal(minute);
    for (const text of ['', '2026-11-28', '2026-11-28 14:05', 'soon']) expect(instantOfInput(text, 'UTC'), text).to.be.NaN;
    expect([inputZoneLabel('UTC'), inputZoneLabel(undefined)]).to.deep.equal(['UTC', 'local time']);
    // A text typed in one zone, shown in another: the same instant; as typed in its own zone.
    expect(textInZone({ text: '2026-11-28T14:05', zone: 'UTC' }, 'UTC')).to.equal('2026-11-28T14:05');
    expect(textInZone({ text: '2026-11-28T14:05', zone: 'UTC' }, 'America/St_Johns')).to.equal('2026-11-28T10:35');
    expect(textInZone({ text: '', zone: 'UTC' }, undefined)).to.equal('');
  });

  it('remembers the zone choice: local unless UTC was chosen, and survives a storage that throws', () => {
    const stored = new Map<string, string>();
    const storage = {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
    };
    expect(readZoneChoice(storage)).to.equal('local');
    saveZoneChoice(storage, 'utc');
    expect(stored.get(ZONE_STORAGE_KEY)).to.equal('utc');
    expect(readZoneChoice(storage)).to.equal('utc');
    const broken = {
      getItem: (): string | null => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    expect(readZoneChoice(broken)).to.equal('local');
    expect(() => saveZoneChoice(broken, 'utc')).not.to.throw();
    expect(readZoneChoice(undefined)).to.equal('local');
    expect(zoneOf('utc')).to.equal('UTC');
    expect(zoneOf('local')).to.equal(undefined);
  });
});

describe('dashboard cost and count format', () => {
  const COLUMNS: Array<[name: string, costs: Array<number | null>, want: string[]]> = [
    // The column: one precision for all, enough for the smallest to show two digits.
    ['mixed magnitudes', [0, 0.004482679999999999, 0.00000694], ['0.0000000 USD', '0.0044827 USD', '0.0000069 USD']],
    ['cents', [4.75, 12, 0.5], ['4.75 USD', '12.00 USD', '0.50 USD']],
    ['large', [1204.5, 3.25], ['1,204.50 USD', '3.25 USD']],
    ['none at all', [null, null], ['—', '—']],
    // Past 8 decimals: never 0, a bound instead.
    ['below the finest precision', [0.000000001, 0.5], ['< 0.00000001 USD', '0.50000000 USD']],
  ];
  for (const [name, costs, want] of COLUMNS) {
    it(`a column of costs, ${name}`, () => {
      const decimals = costDecimals(costs);
      expect(costs.map((cost) => formatCost(cost, decimals))).to.deep.equal(want);
    });
  }

  it('takes 2 to 8 decimals, from the smallest non-zero cost', () => {
    expect(costDecimals([])).to.equal(2);
    expect(costDecimals([0])).to.equal(2);
    expect(costDecimals([0.0045])).to.equal(4);
    expect(costDecimals([0.00000694, 3])).to.equal(7);
    expect(costDecimals([1e-12])).to.equal(8);
    expect(costDecimals([-0.0045])).to.equal(4);
  });

  it('writes one cost on its own with the decimals it has (2 to 8), in its currency, without float noise', () => {
    expect(formatSingleCost(0.004482679999999999)).to.equal('0.00448268 USD');
    expect(formatSingleCost(0.00135408, 'EUR')).to.equal('0.00135408 EUR');
    expect(formatSingleCost(5)).to.equal('5.00 USD');
    expect(formatSingleCost(0)).to.equal('0.00 USD');
    expect(formatSingleCost(1e-10)).to.equal('< 0.00000001 USD');
    expect(formatSingleCost(null)).to.equal('—');
  });

  it("names a span's cost currency: the price's, else USD (a reported cost)", () => {
    expect(spanCostCurrency({ pricing: { currency: 'EUR' } })).to.equal('EUR');
    expect(spanCostCurrency({ pricing: { currency: null } })).to.equal('USD');
  });

  it('groups the digits of counts', () => {
    expect(formatCount(1234567)).to.equal('1,234,567');
    expect(formatCount(12)).to.equal('12');
  });
});
