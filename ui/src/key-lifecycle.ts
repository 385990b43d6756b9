// What the key views decide about a key's lifecycle outside of rendering (management 1.4.0):
// its expiry as a `datetime-local` field holds it (the browser's local time, to the minute) and
// back as RFC 3339, whether it has passed, and the grace periods a rotation offers.
import type { ApiKey } from './management';

/** `YYYY-MM-DDTHH:MM` in local time, as `<input type="datetime-local">` shows it; '' for none. */
export function localInputValue(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** The RFC 3339 instant a `datetime-local` value means in this browser's time zone; null for ''. */
export function expiryFromInput(value: string): string | null {
  return value === '' ? null : new Date(value).toISOString();
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
