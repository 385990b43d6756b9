// The entries ingestion prices with (src/pricing/price-entry-cache.ts): one read per organization
// while a copy is fresh, shared by concurrent requests, read again once older than its age or
// forgotten after a change; a forgotten read in flight is never kept, nor is a failed one.
import { expect } from 'chai';
import { PriceEntryCache } from '../../src/pricing/price-entry-cache.js';
import type { PriceEntry } from '../../src/pricing/price-entries.js';

function entry(model: string): PriceEntry {
  return {
    id: `pe_${model}`,
    provider: null,
    model,
    input_price: 1,
    output_price: 1,
    cache_read_price: null,
    cache_creation_price: null,
    request_price: null,
    currency: 'USD',
    valid_from: null,
    valid_to: null,
  };
}

/** A loader whose answers the test releases one by one, counting the reads. */
function controlledLoader() {
  const pending: Array<{ organizationId: string; resolve: (entries: PriceEntry[]) => void; reject: (error: Error) => void }> = [];
  const load = (organizationId: string) =>
    new Promise<PriceEntry[]>((resolve, reject) => {
      pending.push({ organizationId, resolve, reject });
    });
  return { load, pending };
}

const models = async (prices: Promise<{ entries: readonly PriceEntry[] }>) => (await prices).entries.map((found) => found.model);

describe('price entry cache', () => {
  it('reads an organization once while its copy is fresh, shares a read in flight, and reads again once it is older', async () => {
    let now = 1_000;
    const { load, pending } = controlledLoader();
    const cache = new PriceEntryCache(load, { maxAgeMs: 5_000, now: () => now });
    const first = cache.pricesOf('org_a');
    const second = cache.pricesOf('org_a');
    expect(pending).to.have.length(1);
    pending[0]?.resolve([entry('one')]);
    expect(await models(first)).to.deep.equal(['one']);
    expect(await models(second)).to.deep.equal(['one']);
    now += 5_000;
    expect(await models(cache.pricesOf('org_a'))).to.deep.equal(['one']);
    expect(pending).to.have.length(1);
    now += 1;
    const third = cache.pricesOf('org_a');
    expect(pending).to.have.length(2);
    pending[1]?.resolve([entry('two')]);
    expect(await models(third)).to.deep.equal(['two']);
  });

  it('keeps organizations apart', async () => {
    const cache = new PriceEntryCache(async (organizationId) => [entry(organizationId)]);
    expect(await models(cache.pricesOf('org_a'))).to.deep.equal(['org_a']);
    expect(await models(cache.pricesOf('org_b'))).to.deep.equal(['org_b']);
  });

  it('reads again after forget, and never keeps a read that was in flight when it was forgotten', async () => {
    const { load, pending } = controlledLoader();
    const cache = new PriceEntryCache(load);
    const before = cache.pricesOf('org_a');
    cache.forget('org_a');
    const after = cache.pricesOf('org_a');
    expect(pending).to.have.length(2);
    pending[1]?.resolve([entry('new')]);
    pending[0]?.resolve([entry('old')]);
    expect(await models(before)).to.deep.equal(['old']);
    expect(await models(after)).to.deep.equal(['new']);
    expect(await models(cache.pricesOf('org_a'))).to.deep.equal(['new']);
    expect(pending).to.have.length(2);
  });

  it('does not keep a failed read: the next request reads again', async () => {
    const { load, pending } = controlledLoader();
    const cache = new PriceEntryCache(load);
    const failed = cache.pricesOf('org_a');
    pending[0]?.reject(new Error('database unavailable'));
    let refused: unknown;
    await failed.catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(Error);
    const retried = cache.pricesOf('org_a');
    expect(pending).to.have.length(2);
    pending[1]?.resolve([entry('back')]);
    expect(await models(retried)).to.deep.equal(['back']);
  });
});
