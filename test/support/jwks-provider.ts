// A stand-in OIDC provider on loopback: serves a JWKS made with jose and signs tokens with it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface JwksProvider {
  issuer: string;
  audience: string;
  jwksUrl: string;
  publicJwk: JWK;
  publicPem: string;
  sign(
    claims: JWTPayload,
    options?: { kid?: string; expiresIn?: string | number; notBefore?: string | number; issuer?: string; audience?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startJwksProvider(): Promise<JwksProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'provider-key-1', alg: 'RS256', use: 'sig' };
  const { createPublicKey } = await import('node:crypto');
  const publicPem = createPublicKey({ key: publicJwk as never, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const server = http.createServer((request, response) => {
    if (request.url === '/.well-known/jwks.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}/`;
  const audience = 'spanledger-dashboard';
  return {
    issuer,
    audience,
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    publicJwk,
    publicPem,
    async sign(claims, options = {}) {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? publicJwk.kid })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '10m');
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(privateKey as CryptoKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
