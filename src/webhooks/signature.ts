// Webhook signatures as the Standard Webhooks specification writes them (standardwebhooks.com):
// `webhook-signature: v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`,
// where the key is the base64 after `whsec_` of the endpoint's secret. Several signatures are
// separated by spaces (the current secret's and, during a rotation's grace, the previous one's).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret's key. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}

/** The `webhook-signature` value: one `v1,<signature>` per secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${signatureOf(secret, id, timestamp, body)}`).join(' ');
}

/**
 * The receiver's check (docs/webhooks.md shows the same recipe): the timestamp within
 * `toleranceSeconds` of now, and one `v1` signature of the header equal to the expected one.
 */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, headers.id, timestamp, body), 'base64');
  return headers.signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) return false;
    const offered = Buffer.from(value, 'base64');
    return offered.length === expected.length && timingSafeEqual(offered, expected);
  });
}
