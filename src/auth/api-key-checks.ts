// The rules every API-key credential passes, shared by tokens, Basic credentials (authenticate.ts)
// and the token exchange (src/management/create-access-token.ts): which secret generations work
// now (the current one, and the one before it while its rotation grace lasts) and whether the key
// has expired. Only the stored hashes are compared, in constant time.
import { secretMatches } from '../accounts/secrets.js';
import { toIsoRequired } from '../storage/time.js';
import type { ApiKeyCredentials } from '../storage/accounts/api-key-credentials.js';

/** The secret generation `secret` belongs to (current, or previous while in grace), or undefined. */
export function secretGeneration(key: ApiKeyCredentials, secret: string): number | undefined {
  if (secretMatches(secret, key.secretHash)) return key.secretGeneration;
  if (key.previousSecret && secretMatches(secret, key.previousSecret.hash)) return key.secretGeneration - 1;
  return undefined;
}

/** Whether a token minted under `generation` still works: the current one, or the previous in grace. */
export function generationAccepted(key: ApiKeyCredentials, generation: number): boolean {
  return generation === key.secretGeneration || (key.previousSecret !== null && generation === key.secretGeneration - 1);
}

/** Whether the key's expiry has passed when it was read (the expiry instant itself is past it). */
export function keyExpired(key: ApiKeyCredentials): boolean {
  return key.expiresAt !== null && key.readAt >= key.expiresAt;
}

/** What the caller of an expired key reads (no quotes: it also goes into a challenge's quoted string). */
export function expiredKeyMessage(key: ApiKeyCredentials): string {
  return `API key expired at ${toIsoRequired(key.expiresAt ?? key.readAt)}: its owner can move expires_at (PATCH /api-keys/{api_key}) or create a new key`;
}
