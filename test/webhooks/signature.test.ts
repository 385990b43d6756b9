// Webhook signatures: the Standard Webhooks test vector, the documented recipe, and rotation's two signatures.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect } from 'chai';
import { newWebhookSecret, signatureHeader, signatureOf, verifySignature } from '../../src/webhooks/signature.js';
import { nextAttemptAt } from '../../src/webhooks/retry-schedule.js';

/** The recipe of docs/webhooks.md and the document, as a receiver writes it. */
function documentedVerify(secret: string, headers: Record<string, string>, rawBody: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return headers['webhook-signature'].split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const offered = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && offered.length === expected.length && timingSafeEqual(offered, expected);
  });
}

describe('webhook signatures', () => {
  it('matches the Standard Webhooks specification example', () => {
    // standardwebhooks.com, "Verifying webhooks": the example secret, message and signature.
    const signature = signatureOf(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).to.equal('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is verified by the documented recipe, with either secret during a rotation', () => {
    const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    expect(current).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"id":"evt_1","type":"webhook.test"}';
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([current, previous], 'evt_1', timestamp, body),
    };
    expect(documentedVerify(current, headers, body)).to.equal(true);
    expect(documentedVerify(previous, headers, body)).to.equal(true);
    expect(documentedVerify(other, headers, body)).to.equal(false);
    expect(documentedVerify(current, headers, body.replace('test', 'tesT'))).to.equal(false);
    expect(verifySignature(current, { id: 'evt_1', timestamp: String(timestamp), signature: headers['webhook-signature'] }, body)).to.equal(
      true,
    );
    // Too old: outside the 5-minute tolerance.
    const old = timestamp - 301;
    const stale = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(old),
      'webhook-signature': signatureHeader([current], 'evt_1', old, body),
    };
    expect(documentedVerify(current, stale, body)).to.equal(false);
  });

  it('retries on the schedule with ±20 % jitter, and not past its end', () => {
    const schedule = [10, 30];
    expect(nextAttemptAt(schedule, 1, 1000, () => 0)).to.equal(1000 + 8000);
    expect(nextAttemptAt(schedule, 1, 1000, () => 1)).to.equal(1000 + 12_000);
    expect(nextAttemptAt(schedule, 2, 1000, () => 0.5)).to.equal(1000 + 30_000);
    expect(nextAttemptAt(schedule, 3, 1000)).to.equal(null);
  });
});
