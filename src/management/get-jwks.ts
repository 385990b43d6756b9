// GET /.well-known/jwks.json: the public half of the service's signing key.
import type { operations } from '../generated/management.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';

export function getJwks({ tokens }: ServiceDeps): OperationHandler<operations['getJwks']> {
  return async () => ({ status: 200, body: tokens.publicJwks(), headers: { 'Cache-Control': 'public, max-age=300' } });
}
