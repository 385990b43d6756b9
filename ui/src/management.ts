// What the management views read and decide outside of rendering: whole lists of members and API
// keys, which actions a role allows (the `x-organization-role` of each operation in
// openapi/management.yaml), and the exporter settings of a key (as scripts/seed-demo.ts prints them).
import { call, management } from './api';
import type { components } from '../../src/generated/management';

export type Role = components['schemas']['Role'];
export type Member = components['schemas']['Member'];
export type ApiKey = components['schemas']['ApiKey'];
export type AssignablePermission = components['schemas']['AssignablePermission'];
export type Region = components['schemas']['Region'];
export type PricingPlan = components['schemas']['PricingPlan'];

export const REGIONS: Region[] = ['US', 'EU'];
export const PRICING_PLANS: PricingPlan[] = ['free', 'pro', 'enterprise'];
export const ROLES: Role[] = ['member', 'owner'];
/** The permissions a key may hold (AssignablePermission), in the order the form offers them. */
export const ASSIGNABLE_PERMISSIONS: AssignablePermission[] = [
  'write:traces',
  'read:traces',
  'read:applications',
  'update:applications',
  'read:organizations',
  'update:organizations',
];

/**
 * Owners only: updateOrganization, deleteOrganization, addMember, updateMember, removeMember,
 * listAuditEvents and the price entry writes (createPriceEntry, updatePriceEntry,
 * deletePriceEntry: `x-organization-role: owner`). Everything else in an organization a member
 * may do too.
 */
export function mayManageOrganization(role: Role): boolean {
  return role === 'owner';
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Every page of a list: lists hold at most 100 items a page, the rest follow `next_cursor`. */
async function wholeList<T>(page: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.data);
    cursor = next.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

export function listMembers(organizationId: string): Promise<Member[]> {
  return wholeList((cursor) =>
    call(
      management.GET('/organizations/{org_id}/members', { params: { path: { org_id: organizationId }, query: { limit: 100, cursor } } }),
    ),
  );
}

export function listApiKeys(applicationId: string): Promise<ApiKey[]> {
  return wholeList((cursor) => call(management.GET('/api-keys', { params: { query: { app_id: applicationId, limit: 100, cursor } } })));
}

/**
 * The environment that configures any OpenTelemetry SDK exporter to send to this service with a
 * key: its key and secret as Basic credentials (they never expire; README, "First run"). The SDKs
 * URL-decode OTEL_EXPORTER_OTLP_HEADERS values, so the space and base64's + / = are encoded.
 * X-Vendor-App-Id is not needed: a key's own application is meant.
 */
export function exporterEnvironment(origin: string, apiKey: string, apiSecret: string): Array<[name: string, value: string]> {
  const basic = btoa(`${apiKey}:${apiSecret}`);
  return [
    ['OTEL_EXPORTER_OTLP_ENDPOINT', origin],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'],
    ['OTEL_EXPORTER_OTLP_HEADERS', `Authorization=${encodeURIComponent(`Basic ${basic}`)}`],
  ];
}

/** The environment as shell lines to paste, as scripts/seed-demo.ts prints them (the headers quoted: they hold `%` and `=`). */
export function exporterEnvironmentScript(environment: Array<[string, string]>): string {
  return environment
    .map(([name, value]) => (name === 'OTEL_EXPORTER_OTLP_HEADERS' ? `export ${name}='${value}'` : `export ${name}=${value}`))
    .join('\n');
}
