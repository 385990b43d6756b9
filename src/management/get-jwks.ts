// GET /.well-known/jwks.json: the public half of the service's signing key.
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';

export function getJwks({ tokens }: ServiceDeps) {
  return async (): Promise<Reply> => ({ status: 200, body: tokens.publicJwks(), headers: { 'Cache-Control': 'public, max-age=300' } });
}
