// The calling user's profile: getCurrentUser, updateCurrentUser.
import type { Context as KoaContext } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components } from '../generated/management.js';
import { findUserById, updateUserProfile } from '../storage/accounts/users.js';
import { toIsoRequired } from '../storage/time.js';
import { callingUser } from './request.js';

type Schemas = components['schemas'];

export function getCurrentUser({ knex }: ServiceDeps) {
  return async (_request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const user = await findUserById(knex, callingUser(ctx).userId);
    // Authentication created or found this row for the request; its absence is a bug, not a 404.
    if (!user) throw new Error(`authenticated user ${callingUser(ctx).userId} has no row`);
    const body: Schemas['User'] = {
      id: user.id,
      name: user.name,
      email: user.email,
      created_at: toIsoRequired(user.created_at),
      updated_at: toIsoRequired(user.updated_at),
    };
    return { status: 200, body };
  };
}

export function updateCurrentUser({ knex }: ServiceDeps) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const profile = request.request.requestBody as Schemas['UserUpdate'];
    const now = Date.now();
    const { userId } = callingUser(ctx);
    if ((await updateUserProfile(knex, userId, profile, now)) === 0) throw new Error(`authenticated user ${userId} has no row`);
    const body: Schemas['UserUpdated'] = { updated_at: toIsoRequired(now) };
    return { status: 200, body };
  };
}
