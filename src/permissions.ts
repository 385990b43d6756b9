// The permission vocabulary and organization roles of the contract.

export const PERMISSIONS = [
  'create:organizations',
  'read:organizations',
  'update:organizations',
  'delete:organizations',
  'create:applications',
  'read:applications',
  'update:applications',
  'delete:applications',
  'create:api_credentials',
  'read:api_credentials',
  'update:api_credentials',
  'delete:api_credentials',
  'update:profile',
  'read:traces',
  'write:traces',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What an API key may hold; organization creation and profiles are for dashboard users. */
export const ASSIGNABLE_PERMISSIONS = [
  'read:organizations',
  'update:organizations',
  'read:applications',
  'update:applications',
  'read:traces',
  'write:traces',
] as const satisfies readonly Permission[];

/** A dashboard user's token carries every permission; the organization role narrows it. */
export const DASHBOARD_USER_PERMISSIONS: readonly Permission[] = PERMISSIONS;

export const ROLES = ['member', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function roleSatisfies(actual: Role, required: Role): boolean {
  return ROLES.indexOf(actual) >= ROLES.indexOf(required);
}
