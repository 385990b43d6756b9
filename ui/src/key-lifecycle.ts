// What the key views decide about a key's lifecycle outside of rendering (management 1.4.0):
// its expiry as a `datetime-local` field holds it (in the page's zone, UTC or local, to the minute) and
// back as RFC 3339, whether it has passed, and the grace periods a rotation offers.
import type { ApiKey } from './management';
import { inputValue, instantOfInput, type TimeZone } from './time-format';

/** `YYYY-MM-DDTHH:MM` in the page's zone, as `<input type="datetime-local">` shows it; '' for none. */
export function expiryInputValue(iso: string | null, zone: TimeZone): string {
  return iso ? inputValue(Date.parse(iso), zone) : '';
}

/** The RFC 3339 instant a `datetime-local` value means in the page's zone; null for ''. A value that is no time is sent as typed, for the service to refuse. */
export function expiryFromInput(value: string, zone: TimeZone): string | null {
  if (value === '') return null;
  const instant = instantOfInput(value, zone);
  return Number.isNaN(instant) ? value : new Date(instant).toISOString();
}

export function isExpired(key: Pick<ApiKey, 'expires_at'>, now = Date.now()): boolean {
  return key.expires_at !== null && Date.parse(key.expires_at) <= now;
}

/** The grace periods a rotation offers, in seconds (the document allows 0 to 604800). */
export const GRACE_CHOICES: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 0, label: 'stops at once' },
  { seconds: 3600, label: 'works for 1 more hour' },
  { seconds: 86_400, label: 'works for 1 more day' },
  { seconds: 604_800, label: 'works for 7 more days' },
];
