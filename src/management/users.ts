// The calling user's profile: getCurrentUser, updateCurrentUser.
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { updateProfile } from '../accounts/users.js';
import { findUserById } from '../storage/accounts/users.js';
import { toIsoRequired } from '../storage/time.js';
import { callingUser } from './request.js';

type Schemas = components['schemas'];

export function getCurrentUser({ knex }: ServiceDeps): OperationHandler<operations['getCurrentUser']> {
  return async (request) => {
    const { userId } = callingUser(request);
    const user = await findUserById(knex, userId);
    // Authentication created or found this row for the request; its absence is a bug, not a 404.
    if (!user) throw new Error(`authenticated user ${userId} has no row`);
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

export function updateCurrentUser({ knex }: ServiceDeps): OperationHandler<operations['updateCurrentUser']> {
  return async (request) => {
    const now = Date.now();
    const { userId } = callingUser(request);
    if (!(await updateProfile(knex, userId, request.body, now))) throw new Error(`authenticated user ${userId} has no row`);
    const body: Schemas['UserUpdated'] = { updated_at: toIsoRequired(now) };
    return { status: 200, body };
  };
}
