// Price entry operations: createPriceEntry, listPriceEntries, getPriceEntry, updatePriceEntry,
// deletePriceEntry, and getEffectivePrice (openapi/management.yaml, "Price entries"). A change
// forgets the organization's entries that ingestion keeps (src/pricing/price-entry-cache.ts)
// once it has committed and before the answer, so the spans this instance ingests after the
// answer are priced with it.
import { priceEntryFields } from '../accounts/audit-fields.js';
import * as priceEntries from '../accounts/price-entries.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError, RequestValidationError } from '../errors.js';
import { DEFAULT_BOOK_CURRENCY } from '../pricing/default-price-book.js';
import { effectivePrice } from '../pricing/effective-price.js';
import { OrganizationPrices } from '../pricing/price-entries.js';
import { rfc3339ToNanos } from '../request/time-window.js';
import {
  findPriceEntry,
  listPriceEntries as listPriceEntryRows,
  PRICE_ENTRY_ORDER,
  priceEntriesOf,
  type PriceEntryChanges,
  type PriceEntryRecord,
} from '../storage/accounts/price-entries.js';
import { toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

function priceEntryBody(entry: PriceEntryRecord): Schemas['PriceEntry'] {
  return {
    id: entry.id,
    organization_id: entry.organization_id,
    // The fields an audit event shows are the API's own.
    ...priceEntryFields(entry),
    created_at: toIsoRequired(entry.created_at),
    updated_at: toIsoRequired(entry.updated_at),
  };
}

/**
 * A validity bound as sent (RFC 3339, format-checked by the document) in epoch milliseconds:
 * entries are in force by the millisecond, so a finer fraction that is not zero is refused
 * rather than moved.
 */
function boundOf(value: string | null, field: 'valid_from' | 'valid_to'): number | null {
  if (value === null) return null;
  const nanos = rfc3339ToNanos(value);
  if (nanos % 1_000_000n !== 0n) {
    throw new RequestValidationError([
      {
        loc: ['body', field],
        msg: `${field} is kept to the millisecond: send at most three digits of fraction (${value} falls between two milliseconds)`,
        type: 'value_error',
      },
    ]);
  }
  return Number(nanos / 1_000_000n);
}

type Written = Schemas['PriceEntryUpdate'];

/** The fields the request sent, parsed; an absent field is left out (it keeps its value on an update). */
function changesOf(body: Written): PriceEntryChanges {
  const changes: PriceEntryChanges = {};
  if (body.provider !== undefined) changes.provider = body.provider;
  if (body.model !== undefined) changes.model = body.model;
  if (body.input_price !== undefined) changes.input_price = body.input_price;
  if (body.output_price !== undefined) changes.output_price = body.output_price;
  if (body.cache_read_price !== undefined) changes.cache_read_price = body.cache_read_price;
  if (body.cache_creation_price !== undefined) changes.cache_creation_price = body.cache_creation_price;
  if (body.request_price !== undefined) changes.request_price = body.request_price;
  if (body.currency !== undefined) changes.currency = body.currency;
  if (body.valid_from !== undefined) changes.valid_from = boundOf(body.valid_from, 'valid_from');
  if (body.valid_to !== undefined) changes.valid_to = boundOf(body.valid_to, 'valid_to');
  return changes;
}

export function listPriceEntries({ knex }: ServiceDeps): OperationHandler<operations['listPriceEntries']> {
  return async (request) => {
    const page = pageRequest(request, PRICE_ENTRY_ORDER, [request.params.org_id]);
    const found = await listPriceEntryRows(knex, request.params.org_id, page);
    const body: Schemas['PriceEntryList'] = {
      data: found.items.map(priceEntryBody),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function createPriceEntry({ knex, prices }: ServiceDeps): OperationHandler<operations['createPriceEntry']> {
  return async (request) => {
    const organizationId = request.params.org_id;
    const sent = changesOf(request.body);
    const entry = await priceEntries.createPriceEntry(knex, organizationId, {
      provider: sent.provider ?? null,
      model: request.body.model,
      input_price: request.body.input_price,
      output_price: request.body.output_price,
      cache_read_price: sent.cache_read_price ?? null,
      cache_creation_price: sent.cache_creation_price ?? null,
      request_price: sent.request_price ?? null,
      currency: request.body.currency,
      valid_from: sent.valid_from ?? null,
      valid_to: sent.valid_to ?? null,
    });
    prices.forget(organizationId);
    return { status: 201, body: priceEntryBody(entry) };
  };
}

export function getPriceEntry({ knex }: ServiceDeps): OperationHandler<operations['getPriceEntry']> {
  return async (request) => {
    const entry = await findPriceEntry(knex, request.params.org_id, request.params.entry_id);
    if (!entry) throw new NotFoundError(priceEntries.PRICE_ENTRY_NOT_FOUND);
    return { status: 200, body: priceEntryBody(entry) };
  };
}

export function updatePriceEntry({ knex, prices }: ServiceDeps): OperationHandler<operations['updatePriceEntry']> {
  return async (request) => {
    const { org_id: organizationId, entry_id: id } = request.params;
    const entry = await priceEntries.updatePriceEntry(knex, organizationId, id, changesOf(request.body));
    prices.forget(organizationId);
    return { status: 200, body: priceEntryBody(entry) };
  };
}

export function deletePriceEntry({ knex, prices }: ServiceDeps): OperationHandler<operations['deletePriceEntry']> {
  return async (request) => {
    const { org_id: organizationId, entry_id: id } = request.params;
    await priceEntries.deletePriceEntry(knex, organizationId, id);
    prices.forget(organizationId);
    return { status: 204 };
  };
}

/** The millisecond an instant falls in, as ingestion matches a span's start (rounded down, also before 1970). */
function floorMillis(nanos: bigint): number {
  const millis = nanos / 1_000_000n;
  return Number(nanos % 1_000_000n < 0n ? millis - 1n : millis);
}

const UNPRICED = {
  entry_id: null,
  book: null,
  provider: null,
  model: null,
  currency: null,
  input_price: null,
  output_price: null,
  cache_read_price: null,
  cache_creation_price: null,
  request_price: null,
} as const;

export function getEffectivePrice({ knex, clock = Date.now }: ServiceDeps): OperationHandler<operations['getEffectivePrice']> {
  return async (request) => {
    const { model, provider, at } = request.query;
    const atMs = at === undefined ? clock() : floorMillis(rfc3339ToNanos(at));
    // Read as stored, not from ingestion's copy: the same answer on every instance.
    const organizationPrices = new OrganizationPrices(await priceEntriesOf(knex, request.params.org_id));
    const found = effectivePrice(organizationPrices, model, provider ?? null, atMs);
    const common = { at: toIsoRequired(atMs) };
    let body: Schemas['EffectivePrice'];
    if (found.source === 'entry') {
      const { entry } = found;
      body = {
        ...common,
        source: 'entry',
        ...UNPRICED,
        entry_id: entry.id,
        provider: entry.provider,
        model: entry.model,
        currency: entry.currency,
        input_price: entry.input_price,
        output_price: entry.output_price,
        cache_read_price: entry.cache_read_price ?? entry.input_price,
        cache_creation_price: entry.cache_creation_price ?? entry.input_price,
        request_price: entry.request_price,
        unpriced_reason: null,
      };
    } else if (found.source === 'default_book') {
      const { prices } = found;
      body = {
        ...common,
        source: 'default_book',
        ...UNPRICED,
        book: prices.book,
        provider: prices.provider,
        model: prices.model,
        currency: DEFAULT_BOOK_CURRENCY,
        input_price: prices.input,
        output_price: prices.output,
        cache_read_price: prices.cache_read,
        cache_creation_price: prices.cache_creation,
        request_price: prices.request,
        unpriced_reason: null,
      };
    } else {
      body = { ...common, source: null, ...UNPRICED, unpriced_reason: found.reason };
    }
    return { status: 200, body };
  };
}
