// API secrets are high-entropy random values, so a fast hash (SHA-256) is enough to store them;
// comparison is constant-time. The secret itself is never stored or logged.
import { createHash, timingSafeEqual } from 'node:crypto';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const offered = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return offered.length === stored.length && timingSafeEqual(offered, stored);
}
