// The service's own asymmetric signing key (ES256): created on first start and kept in the
// data folder (mode 0600), or given by SIGNING_KEY_FILE. Only its public half is published.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function createKeyFile(file: string): Promise<void> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    // 'wx': another process starting at the same moment may have written it first; keep theirs.
    fs.writeFileSync(file, JSON.stringify(jwk, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export async function loadSigningKey(file: string): Promise<SigningKey> {
  if (!fs.existsSync(file)) await createKeyFile(file);
  const jwk = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
  if (!jwk.d || jwk.kty !== 'EC' || jwk.crv !== 'P-256') {
    throw new Error(`${file} must hold a private P-256 EC key in JWK form`);
  }
  const kid = jwk.kid ?? 'spanledger';
  const privateKey = (await importJWK({ ...jwk, alg: SIGNING_ALGORITHM }, SIGNING_ALGORITHM)) as CryptoKey;
  const { kty, crv, x, y } = jwk;
  return { kid, privateKey, publicJwk: { kty, crv, x, y, kid, alg: SIGNING_ALGORITHM, use: 'sig' } };
}
