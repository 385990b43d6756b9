// Every time the dashboard writes goes through here: one format (24-hour, ISO-like
// `2026-11-28 14:05:09`), the zone always written beside it, and one zone for every page, UTC or
// the browser's local zone, chosen in the header and remembered in localStorage. The functions
// take the zone as an argument (an IANA name, undefined for the browser's own), so they are pure
// and tested without a browser; components read the chosen zone with useTimeZone()
// (ui/src/use-time-zone.ts) and re-render when it changes.

export type ZoneChoice = 'utc' | 'local';

/** The part of localStorage the choice needs (written out: this module is also compiled without the DOM's types). */
interface PreferenceStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The zone a choice means: `UTC`, or undefined for the browser's own zone. */
export type TimeZone = string | undefined;

export const ZONE_STORAGE_KEY = 'spanledger.timeZone';

/** The remembered choice; local unless UTC was chosen (storage may be unavailable: local then). */
export function readZoneChoice(storage: Pick<PreferenceStorage, 'getItem'> | undefined): ZoneChoice {
  try {
    return storage?.getItem(ZONE_STORAGE_KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

export function saveZoneChoice(storage: Pick<PreferenceStorage, 'setItem'> | undefined, choice: ZoneChoice): void {
  try {
    storage?.setItem(ZONE_STORAGE_KEY, choice);
  } catch {
    // A browser that refuses storage keeps the choice for this page only.
  }
}

export function zoneOf(choice: ZoneChoice): TimeZone {
  return choice === 'utc' ? 'UTC' : undefined;
}

const FORMATS = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: TimeZone): Intl.DateTimeFormat {
  const key = zone ?? '';
  let format = FORMATS.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    FORMATS.set(key, format);
  }
  return format;
}

interface Parts {
  date: string;
  clock: string;
  /** `UTC`, or the offset from it: `UTC+01:00`, `UTC-03:30`. */
  zone: string;
}

function partsOf(epochMs: number, zone: TimeZone): Parts | undefined {
  const date = new Date(epochMs);
  if (Number.isNaN(date.getTime())) return undefined;
  const part: Record<string, string> = {};
  for (const { type, value } of formatFor(zone).formatToParts(date)) part[type] = value;
  // `GMT+01:00` from Intl; plain `GMT` where the offset is zero.
  const offset = (part.timeZoneName ?? 'GMT').replace(/^GMT/, '');
  return {
    date: `${part.year}-${part.month}-${part.day}`,
    clock: `${part.hour}:${part.minute}:${part.second}`,
    zone: zone === 'UTC' || /^([+-]00:00)?$/.test(offset) ? 'UTC' : `UTC${offset}`,
  };
}

/** A moment as `2026-11-28 14:05:09 UTC` (or `… UTC+01:00` in a local zone); `.123` with `ms`. */
export function formatDateTime(epochMs: number, zone: TimeZone, options: { ms?: boolean } = {}): string {
  const parts = partsOf(epochMs, zone);
  if (!parts) return '—';
  const fraction = options.ms ? `.${String(Math.floor(((epochMs % 1000) + 1000) % 1000)).padStart(3, '0')}` : '';
  return `${parts.date} ${parts.clock}${fraction} ${parts.zone}`;
}

/** An RFC 3339 text (as the API answers) the same way; text that is no time is written as it came. */
export function formatIsoText(text: string, zone: TimeZone, options: { ms?: boolean } = {}): string {
  const epochMs = Date.parse(text);
  return Number.isNaN(epochMs) ? text : formatDateTime(epochMs, zone, options);
}

/** A Unix time in nanoseconds (as spans carry it), to the millisecond. */
export function formatUnixNano(unixNano: number, zone: TimeZone): string {
  return formatDateTime(unixNano / 1e6, zone, { ms: true });
}

/** The time of day only, with milliseconds and the zone: `14:05:09.123 UTC` (the live list, where the day is today's). */
export function formatClock(epochMs: number, zone: TimeZone): string {
  const parts = partsOf(epochMs, zone);
  if (!parts) return '—';
  return `${parts.clock}.${String(Math.floor(((epochMs % 1000) + 1000) % 1000)).padStart(3, '0')} ${parts.zone}`;
}

/** The day only: `2026-11-28` (for buckets of whole days, where the zone is said in the column header). */
export function formatDay(epochMs: number, zone: TimeZone): string {
  return partsOf(epochMs, zone)?.date ?? '—';
}

/** The zone's name for headers and captions: `UTC`, or the local zone's IANA name and offset now. */
export function zoneName(zone: TimeZone, now = Date.now()): string {
  if (zone === 'UTC') return 'UTC';
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  const offset = partsOf(now, zone)?.zone ?? 'UTC';
  return name === 'UTC' || name === 'Etc/UTC' ? 'UTC' : `${name}, ${offset}`;
}

/**
 * The labels of a chart's time axis (Unix seconds): `2026-11-28` for whole days, `11-28 14:00`
 * when the axis spans more than a day, else `14:05` (`14:05:30` when a tick is not on a minute).
 * The zone is said once, in the axis title.
 */
export function axisTimeLabels(splits: ReadonlyArray<number | null>, zone: TimeZone, days: boolean): string[] {
  const times = splits.filter((split): split is number => typeof split === 'number' && Number.isFinite(split));
  const span = times.length > 1 ? Math.max(...times) - Math.min(...times) : 0;
  const seconds = times.some((time) => time % 60 !== 0);
  return splits.map((split) => {
    if (split === null || !Number.isFinite(split)) return '';
    const parts = partsOf(split * 1000, zone);
    if (!parts) return '';
    if (days) return parts.date;
    const clock = seconds ? parts.clock : parts.clock.slice(0, 5);
    return span > 86_400 ? `${parts.date.slice(5)} ${clock}` : clock;
  });
}

/**
 * An instant as a `datetime-local` input holds it in the chosen zone: `2026-11-28T14:05`
 * (`…:09` with `seconds`). The inputs follow the zone the page writes times in, so a time read
 * off a table can be typed back as it reads.
 */
export function inputValue(epochMs: number, zone: TimeZone, options: { seconds?: boolean } = {}): string {
  const parts = partsOf(epochMs, zone);
  if (!parts) return '';
  return `${parts.date}T${options.seconds ? parts.clock : parts.clock.slice(0, 5)}`;
}

/** The instant a `datetime-local` value means in the chosen zone (UTC, or the browser's own); NaN for no time. */
export function instantOfInput(value: string, zone: TimeZone): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return Number.NaN;
  return zone === 'UTC' ? Date.parse(`${value}Z`) : new Date(value).getTime();
}

/** How a field's label names the zone its value is in: `UTC` or `local time`. */
export function inputZoneLabel(zone: TimeZone): string {
  return zone === 'UTC' ? 'UTC' : 'local time';
}

/** A field's text and the zone it was typed in. */
export interface ZonedText {
  text: string;
  zone: TimeZone;
}

/** The field's text in `zone`: as typed, or the same instant rewritten there ('' for no time). */
export function textInZone(typed: ZonedText, zone: TimeZone): string {
  return typed.zone === zone ? typed.text : inputValue(instantOfInput(typed.text, typed.zone), zone);
}
