// The price entries ingestion prices with, per organization, read from storage and kept for a few
// seconds (README.md beside this file, "Organization price entries"). A change through the
// management API of this process forgets its organization's entries before the API answers, so
// every span ingested here after the answer is priced with the change; another process reads them
// again once its copy is older than PRICE_ENTRIES_MAX_AGE_MS. One read per organization at most
// every PRICE_ENTRIES_MAX_AGE_MS, shared by the requests that arrive while it runs.
import { OrganizationPrices, type PriceEntry } from './price-entries.js';

/** How long entries read from storage are used: how soon another instance's change applies here. */
export const PRICE_ENTRIES_MAX_AGE_MS = 5_000;

/** Where ingestion gets an organization's entries. */
export interface OrganizationPriceSource {
  pricesOf(organizationId: string): Promise<OrganizationPrices>;
}

export interface PriceEntryCacheOptions {
  maxAgeMs?: number;
  /** Epoch milliseconds (Date.now by default). */
  now?: () => number;
}

// Organization ids arrive with authorized requests only, yet the map stays bounded (starting over when full).
const MAX_ORGANIZATIONS = 10_000;

interface Cached {
  /** When the read began: a copy is as old as the state it may have missed. */
  readAt: number;
  prices: Promise<OrganizationPrices>;
}

export class PriceEntryCache implements OrganizationPriceSource {
  private readonly cached = new Map<string, Cached>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly load: (organizationId: string) => Promise<PriceEntry[]>,
    { maxAgeMs = PRICE_ENTRIES_MAX_AGE_MS, now = Date.now }: PriceEntryCacheOptions = {},
  ) {
    this.maxAgeMs = maxAgeMs;
    this.now = now;
  }

  pricesOf(organizationId: string): Promise<OrganizationPrices> {
    const now = this.now();
    const hit = this.cached.get(organizationId);
    if (hit !== undefined && now - hit.readAt <= this.maxAgeMs) return hit.prices;
    const cached: Cached = { readAt: now, prices: this.load(organizationId).then((entries) => new OrganizationPrices(entries)) };
    if (this.cached.size >= MAX_ORGANIZATIONS) this.cached.clear();
    this.cached.set(organizationId, cached);
    // A failed read is not kept: the next request reads again.
    cached.prices.catch(() => {
      if (this.cached.get(organizationId) === cached) this.cached.delete(organizationId);
    });
    return cached.prices;
  }

  /**
   * Forgets the organization's entries, after a change to them has committed: the next request
   * reads them again. A read already under way is dropped with them, so no copy from before the
   * change is kept.
   */
  forget(organizationId: string): void {
    this.cached.delete(organizationId);
  }
}
