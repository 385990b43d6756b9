// Authorization read from the OpenAPI documents: each operation's security requirement names the
// one permission it needs, `x-principals` who may call it, `x-organization-role` the least role
// a user needs in the organization the request touches.
import type { Knex } from 'knex';
import type { Context as OpenApiContext } from 'openapi-backend';
import { roleSatisfies, type Role } from '../permissions.js';
import { PermissionDeniedError, NotFoundError, RequestValidationError } from '../errors.js';
import {
  activeApiKeyOwner,
  activeApplication,
  activeOrganization,
  membershipRole,
  type OwnedResource,
} from '../storage/accounts/resources.js';
import type { Principal, RequestScope } from './principal.js';

type PrincipalKind = Principal['kind'];

export interface OperationAccess {
  permission: string | undefined;
  principals: PrincipalKind[];
  role: Role | undefined;
  /** Whether the document declares 403; where it does not (DELETE /organizations), refusals are 404. */
  declaresForbidden: boolean;
}

/** Whether the operation lists the basicAuth scheme among its security requirements (ingestion does). */
export function acceptsBasic(operation: OpenApiContext['operation']): boolean {
  return (operation.security ?? []).some((requirement) => 'basicAuth' in requirement);
}

/** Reads the access rule of an operation from its (dereferenced) OpenAPI object; undefined when public. */
export function operationAccess(operation: OpenApiContext['operation']): OperationAccess | undefined {
  const requirement = (operation.security ?? []).find((entry) => 'bearerAuth' in entry);
  if (!requirement) return undefined;
  const extensions = operation as unknown as Record<string, unknown>;
  return {
    permission: requirement.bearerAuth?.[0],
    principals: (extensions['x-principals'] as PrincipalKind[] | undefined) ?? ['user', 'api_key'],
    role: extensions['x-organization-role'] as Role | undefined,
    declaresForbidden: Boolean(operation.responses && '403' in operation.responses),
  };
}

type ResourceKind = 'organization' | 'application' | 'api_key';

export interface TouchedResource {
  kind: ResourceKind;
  id: string;
  /** Named by X-Vendor-App-Id (an engine call) rather than by a path, body or query. */
  viaHeader: boolean;
}

function stringField(source: unknown, name: string): string | undefined {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The one resource whose organization decides access, from path, then header, then body, then query. */
function touchedResource(request: OpenApiContext['request']): TouchedResource | undefined {
  const candidates: Array<[ResourceKind, string | undefined, boolean]> = [
    ['organization', stringField(request.params, 'org_id'), false],
    ['application', stringField(request.params, 'app_id'), false],
    ['api_key', stringField(request.params, 'api_key'), false],
    ['application', stringField(request.headers, 'x-vendor-app-id'), true],
    ['organization', stringField(request.requestBody, 'organization_id'), false],
    ['application', stringField(request.requestBody, 'app_id'), false],
    ['application', stringField(request.query, 'app_id'), false],
    ['organization', stringField(request.query, 'organization_id'), false],
  ];
  const found = candidates.find(([, id]) => id !== undefined);
  return found && { kind: found[0], id: found[1] as string, viaHeader: found[2] };
}

const APP_HEADER = 'x-vendor-app-id';

/** Whether the operation declares X-Vendor-App-Id optional (ingestion: a key's own application is the default). */
function appHeaderOptional(operation: OpenApiContext['operation']): boolean {
  return (operation.parameters ?? []).some(
    (parameter) => 'in' in parameter && parameter.in === 'header' && parameter.name.toLowerCase() === APP_HEADER && !parameter.required,
  );
}

/**
 * Where X-Vendor-App-Id is optional and absent: an API key acts on its own application (as if it
 * had named it); a user must still name one, with the 422 a required header gets.
 */
export function impliedApplication(principal: Principal, operation: OpenApiContext['operation']): TouchedResource | undefined {
  if (!appHeaderOptional(operation)) return undefined;
  if (principal.kind === 'api_key') return { kind: 'application', id: principal.applicationId, viaHeader: true };
  throw new RequestValidationError([{ loc: ['header', APP_HEADER], msg: 'Field required', type: 'missing' }]);
}

const LOOKUPS: Record<ResourceKind, (knex: Knex, id: string) => Promise<OwnedResource | undefined>> = {
  organization: activeOrganization,
  application: activeApplication,
  api_key: activeApiKeyOwner,
};

const NOT_FOUND: Record<ResourceKind, string> = {
  organization: 'Organization not found',
  application: 'Application not found',
  api_key: 'API key not found',
};

async function scopeForUser(
  knex: Knex,
  principal: Principal & { kind: 'user' },
  owned: OwnedResource,
  touched: TouchedResource,
  access: OperationAccess,
): Promise<RequestScope> {
  const role = await membershipRole(knex, owned.organizationId, principal.userId);
  if (!role) throw new NotFoundError(NOT_FOUND[touched.kind]);
  if (access.role && !roleSatisfies(role, access.role)) {
    if (!access.declaresForbidden) throw new NotFoundError(NOT_FOUND[touched.kind]);
    throw new PermissionDeniedError(`this operation needs the ${access.role} role in the organization; you are a ${role}`);
  }
  return { ...owned, role };
}

function scopeForApiKey(principal: Principal & { kind: 'api_key' }, owned: OwnedResource, touched: TouchedResource): RequestScope {
  if (owned.organizationId !== principal.organizationId) throw new NotFoundError(NOT_FOUND[touched.kind]);
  if (owned.applicationId !== undefined && owned.applicationId !== principal.applicationId) {
    if (touched.viaHeader) throw new PermissionDeniedError('an API key may only act on its own application');
    throw new NotFoundError(NOT_FOUND[touched.kind]);
  }
  return owned;
}

/**
 * Checks the principal against the operation's rule and returns the scope the request acts in.
 * 403: wrong kind of caller, missing permission, or too low a role; 404: the resource does not
 * exist or lies outside what the caller can see (never revealing which); 422: a user omitted an
 * optional-for-keys X-Vendor-App-Id. A header sent empty was refused by validation before, as
 * every header whose schema has a `minLength` is.
 */
export async function authorize(knex: Knex, principal: Principal, request: OpenApiContext): Promise<RequestScope | undefined> {
  const access = operationAccess(request.operation);
  if (!access) return undefined;
  return authorizeAccess(knex, principal, access, touchedResource(request.request) ?? impliedApplication(principal, request.operation));
}

/**
 * authorize, given the operation's rule and the resource it touches rather than an OpenAPI
 * request: transports without one (gRPC ingestion) apply exactly the same checks through it.
 */
export async function authorizeAccess(
  knex: Knex,
  principal: Principal,
  access: OperationAccess,
  touched: TouchedResource | undefined,
): Promise<RequestScope | undefined> {
  if (!access.principals.includes(principal.kind)) {
    if (!access.declaresForbidden) throw new NotFoundError('Not Found');
    throw new PermissionDeniedError(
      principal.kind === 'api_key' ? 'API keys cannot use this operation; it is for dashboard users' : 'this operation is for API keys',
    );
  }
  if (access.permission && !principal.permissions.has(access.permission)) {
    if (!access.declaresForbidden) throw new NotFoundError('Not Found');
    throw new PermissionDeniedError(`missing permission ${access.permission}`);
  }
  if (!touched) return undefined;
  // An API key's own application: authentication found it active (with its organization) in this
  // same request, so it is not looked up twice.
  const owned =
    principal.kind === 'api_key' && touched.kind === 'application' && touched.id === principal.applicationId
      ? {
          organizationId: principal.organizationId,
          applicationId: principal.applicationId,
          indexedAttributes: principal.indexedAttributes,
          readAt: principal.readAt,
          dailySpanQuota: principal.dailySpanQuota,
        }
      : await LOOKUPS[touched.kind](knex, touched.id);
  if (!owned) throw new NotFoundError(NOT_FOUND[touched.kind]);
  return principal.kind === 'user' ? scopeForUser(knex, principal, owned, touched, access) : scopeForApiKey(principal, owned, touched);
}
