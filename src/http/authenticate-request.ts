// The koa side of authentication: reads the header, and puts the refusal's reason where the
// access log (request-context.ts) finds it.
import type { Context as KoaContext } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import { AuthenticationError, authenticateAuthorization, type AuthenticationDeps } from '../auth/authenticate.js';
import { acceptsBasic } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';

export async function authenticateRequest(
  ctx: KoaContext,
  operation: OpenApiContext['operation'],
  deps: AuthenticationDeps,
): Promise<Principal> {
  try {
    return await authenticateAuthorization(ctx.get('Authorization'), deps, { acceptBasic: acceptsBasic(operation) });
  } catch (error) {
    if (error instanceof AuthenticationError) ctx.state.authFailure = error.reason;
    throw error;
  }
}
