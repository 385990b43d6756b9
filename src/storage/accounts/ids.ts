// Prefixed random identifiers and secrets (`org_…`, `app_…`, `usr_…`, `ak_…`, `pe_…`, `rpj_…`, `whe_…`, `evt_…`, `whd_…`, `bud_…`, `exp_…`, `as_…`).
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` base62 characters from the CSPRNG, without modulo bias (rejection sampling). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** `pe`: an organization's price entry; `rpj`: a re-pricing job; `whe`, `evt`, `whd`: a webhook endpoint, event, delivery; `bud`: a budget; `exp`: an export. */
export type IdPrefix = 'org' | 'app' | 'usr' | 'ak' | 'pe' | 'rpj' | 'whe' | 'evt' | 'whd' | 'bud' | 'exp';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

/** An API secret: 43 base62 characters, about 256 bits. */
export function newSecret(): string {
  return `as_${randomBase62(43)}`;
}
