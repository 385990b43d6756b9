// What each kind of resource shows of itself in an audit event (docs/audit-log.md): the fields
// the management API shows, under the same names; never a secret or its hash.
import type { AuditFields } from '../storage/audit/audit-events.js';
import type { ApplicationRecord } from '../storage/accounts/applications.js';
import type { ApiKeySubject } from '../storage/accounts/audit-subjects.js';
import type { MemberRecord } from '../storage/accounts/memberships.js';
import type { OrganizationRecord } from '../storage/accounts/organizations.js';
import type { PriceEntryRecord } from '../storage/accounts/price-entries.js';
import type { RepricingJobRecord } from '../storage/repricing/repricing-jobs.js';
import type { WebhookEndpointRecord } from '../storage/webhooks/webhook-endpoints.js';
import type { BudgetRecord } from '../storage/budgets/budgets.js';
import { nanosToIso, toIso } from '../storage/time.js';

export function organizationFields(organization: Omit<OrganizationRecord, 'id' | 'created_at' | 'updated_at'>): AuditFields {
  const { name, contract_email, tax_id, address, billing_address } = organization;
  return { name, contract_email, tax_id, address, billing_address };
}

export function memberFields(member: Pick<MemberRecord, 'email' | 'role'>): AuditFields {
  return { email: member.email, role: member.role };
}

/** `retention_days` null: the application follows the configured default. */
export function applicationFields(application: ApplicationRecord): AuditFields {
  return {
    name: application.name,
    region: application.region,
    pricing_plan: application.pricing_plan,
    retention_days: application.retention_days,
    indexed_attributes: application.indexed_attributes.paths,
    daily_span_quota: application.daily_span_quota,
  };
}

/** `expires_at` as the API shows it (RFC 3339), null when the key never expires. */
export function apiKeyFields(key: Pick<ApiKeySubject, 'name' | 'application_id' | 'permissions' | 'expires_at'>): AuditFields {
  return {
    name: key.name,
    app_id: key.application_id,
    permissions: key.permissions,
    expires_at: key.expires_at === null ? null : new Date(key.expires_at).toISOString(),
  };
}

/** An entry's writable fields as the API shows them (`valid_from`, `valid_to` in RFC 3339; null: unbounded). */
export function priceEntryFields(entry: PriceEntryRecord) {
  return {
    provider: entry.provider,
    model: entry.model,
    input_price: entry.input_price,
    output_price: entry.output_price,
    cache_read_price: entry.cache_read_price,
    cache_creation_price: entry.cache_creation_price,
    request_price: entry.request_price,
    currency: entry.currency,
    valid_from: toIso(entry.valid_from),
    valid_to: toIso(entry.valid_to),
  };
}

/** A re-pricing job's window as the API shows it, and its status (the one field a change of it sets). */
export function repricingJobFields(job: Pick<RepricingJobRecord, 'fromNs' | 'toNs' | 'status'>): AuditFields {
  return { from: nanosToIso(job.fromNs), to: nanosToIso(job.toNs), status: job.status };
}

/** An endpoint's writable fields as the API shows them; never its secret. */
export function webhookEndpointFields(
  endpoint: Pick<WebhookEndpointRecord, 'url' | 'description' | 'event_types' | 'enabled'>,
): AuditFields {
  return { url: endpoint.url, description: endpoint.description, event_types: endpoint.event_types, enabled: endpoint.enabled };
}

/** A budget's writable fields as the API shows them. */
export function budgetFields(budget: BudgetRecord) {
  return {
    name: budget.name,
    application_id: budget.application_id,
    amount: budget.amount,
    currency: budget.currency,
    period: budget.period,
    thresholds: budget.thresholds,
    enabled: budget.enabled,
  };
}
