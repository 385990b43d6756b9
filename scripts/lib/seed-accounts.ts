// Owns seeding accounts straight into a database for tests and benchmarks: users, organizations
// with their members, applications, API keys with a known secret, price entries and budgets. Every write goes through the
// storage repositories (src/storage/accounts/) with the ids, secret hashing and permission types
// of src/accounts/, so the seeded rows are the rows the service itself writes; no raw inserts.
import type { Knex } from 'knex';
import { newId, newSecret } from '../../src/storage/accounts/ids.js';
import type { Permission, Role } from '../../src/permissions.js';
import { hashSecret } from '../../src/accounts/secrets.js';
import { insertApiKey } from '../../src/storage/accounts/api-keys.js';
import { insertApplication, type PricingPlan, type Region } from '../../src/storage/accounts/applications.js';
import { initialIndexedAttributes } from '../../src/storage/accounts/indexed-attributes.js';
import { addMembership } from '../../src/storage/accounts/memberships.js';
import { EMPTY_ADDRESS, insertOrganization } from '../../src/storage/accounts/organizations.js';
import { writeTransaction } from '../../src/storage/transactions.js';
import { signInUser, type UserRecord } from '../../src/storage/accounts/users.js';
import { insertPriceEntry, type PriceEntryRecord } from '../../src/storage/accounts/price-entries.js';
import { insertBudget, type BudgetRecord } from '../../src/storage/budgets/budgets.js';

/** The issuer of users this module makes up (an organization seeded without an owner gets one). */
export const SEED_ISSUER = 'urn:spanledger:seed';

export interface SeedUserInput {
  /** Default: SEED_ISSUER. Tests pass the service's own issuer, so its tokens name this user. */
  issuer?: string;
  subject: string;
  email?: string | null;
  name?: string | null;
}

/** A signed-in user (created on the first call, the same row on later calls with the same identity). */
export async function seedUser(knex: Knex, input: SeedUserInput, now = Date.now()): Promise<UserRecord> {
  return signInUser(
    knex,
    { issuer: input.issuer ?? SEED_ISSUER, subject: input.subject, email: input.email ?? null, name: input.name ?? null },
    now,
  );
}

/**
 * The owner of organizations seeded without one: every organization has an owner, as
 * insertOrganization() makes it (the creator). One user per database, made on first use.
 */
export async function seedDefaultOwner(knex: Knex): Promise<UserRecord> {
  return seedUser(knex, { subject: 'seed-owner', name: 'Seed owner' });
}

export type SeedMember = readonly [userId: string, role: Role];

export interface SeedOrganizationInput {
  /** Default: `Org <id>`. */
  name?: string;
  /**
   * Members and their roles. The first owner listed becomes the organization's owner; without
   * one, seedDefaultOwner() owns it (and the listed users are only what they are listed as).
   */
  members?: readonly SeedMember[];
}

/** An organization with its members; answers its id. */
export async function seedOrganization(knex: Knex, input: SeedOrganizationInput = {}, now = Date.now()): Promise<string> {
  const members = input.members ?? [];
  const owner = members.find(([, role]) => role === 'owner')?.[0] ?? (await seedDefaultOwner(knex)).id;
  const id = newId('org');
  await writeTransaction(knex, async (trx) => {
    await insertOrganization(
      trx,
      {
        id,
        name: input.name ?? `Org ${id}`,
        contract_email: '',
        tax_id: '',
        address: { ...EMPTY_ADDRESS },
        billing_address: { ...EMPTY_ADDRESS },
        created_at: now,
        updated_at: now,
      },
      owner,
    );
    for (const [userId, role] of members) {
      if (userId !== owner) await addMembership(trx, id, userId, role, now);
    }
  });
  return id;
}

export interface SeedApplicationInput {
  /** Default: `App <id>`. */
  name?: string;
  /** Default: EU. */
  region?: Region;
  /** Default: free. */
  pricingPlan?: PricingPlan;
  /** Default: null, the configured retention applies. */
  retentionDays?: number | null;
  /** Indexed attribute paths (ready at once: the application has no spans yet). */
  indexedAttributes?: string[];
}

/** An application of the organization; answers its id. */
export async function seedApplication(
  knex: Knex,
  organizationId: string,
  input: SeedApplicationInput = {},
  now = Date.now(),
): Promise<string> {
  const id = newId('app');
  await writeTransaction(knex, (trx) =>
    insertApplication(trx, {
      id,
      organization_id: organizationId,
      name: input.name ?? `App ${id}`,
      region: input.region ?? 'EU',
      pricing_plan: input.pricingPlan ?? 'free',
      retention_days: input.retentionDays ?? null,
      indexed_attributes: initialIndexedAttributes(input.indexedAttributes ?? [], now),
      daily_span_quota: null,
      created_at: now,
      updated_at: now,
    }),
  );
  return id;
}

export interface SeededApiKey {
  apiKey: string;
  /** The key's secret, which the database holds only as a hash. */
  secret: string;
}

export interface SeedApiKeyInput {
  /** Default: `key <id>`. */
  name?: string;
  /** Default: a new random secret. */
  secret?: string;
}

/** An API key of the application holding `permissions`, with its secret. */
export async function seedApiKey(
  knex: Knex,
  applicationId: string,
  permissions: readonly Permission[],
  input: SeedApiKeyInput = {},
  now = Date.now(),
): Promise<SeededApiKey> {
  const apiKey = newId('ak');
  const secret = input.secret ?? newSecret();
  await writeTransaction(knex, (trx) =>
    insertApiKey(
      trx,
      {
        id: apiKey,
        application_id: applicationId,
        name: input.name ?? `key ${apiKey}`,
        permissions: [...permissions],
        secret_hash: hashSecret(secret),
      },
      now,
    ),
  );
  return { apiKey, secret };
}

/** A price entry of the organization (default: any provider's `seed-model`, 1 and 2 USD per million tokens, always in force); answers its id. */
export async function seedPriceEntry(
  knex: Knex,
  organizationId: string,
  input: Partial<Omit<PriceEntryRecord, 'id' | 'organization_id' | 'created_at' | 'updated_at'>> = {},
  now = Date.now(),
): Promise<string> {
  const id = newId('pe');
  await writeTransaction(knex, (trx) =>
    insertPriceEntry(trx, {
      id,
      organization_id: organizationId,
      provider: null,
      model: 'seed-model',
      input_price: 1,
      output_price: 2,
      cache_read_price: null,
      cache_creation_price: null,
      request_price: null,
      currency: 'USD',
      valid_from: null,
      valid_to: null,
      ...input,
      created_at: now,
      updated_at: now,
    }),
  );
  return id;
}

/** A budget of the organization (default: the whole organization, 100 USD a month, thresholds 50, 80 and 100); answers its id. */
export async function seedBudget(
  knex: Knex,
  organizationId: string,
  input: Partial<Omit<BudgetRecord, 'id' | 'organization_id' | 'created_at' | 'updated_at'>> = {},
  now = Date.now(),
): Promise<string> {
  const id = newId('bud');
  await writeTransaction(knex, (trx) =>
    insertBudget(trx, {
      id,
      organization_id: organizationId,
      name: 'Seeded',
      application_id: null,
      amount: 100,
      currency: 'USD',
      period: 'month',
      thresholds: [50, 80, 100],
      enabled: true,
      ...input,
      created_at: now,
      updated_at: now,
    }),
  );
  return id;
}
