// The organization's price entries (listPriceEntries), newest first, ENTRY_PAGE_SIZE a page with
// "Newer" and "Older" (the API pages oldest first by number: ui/src/prices.ts finds the pages that
// hold the newest). For whoever may change the organization, each row has Edit and Delete
// (updatePriceEntry and deletePriceEntry are `x-organization-role: owner`); one entry's details
// (getPriceEntry) open from its model or from a link naming it (`?entry=`).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiError, call, management } from '../api';
import { ENTRY_PAGE_SIZE, formatUtc, newestFirstRows, newestFirstWindow, pageCount, type PriceEntry } from '../prices';
import { useAsync } from '../use-async';
import { ActionError } from './action-error';
import { withQuery } from './application-picker';
import { ConfirmButton } from './confirm-button';
import { useAction } from './use-action';

async function loadEntries(organizationId: string, shown: number) {
  const read = (page: number) =>
    call(
      management.GET('/organizations/{org_id}/price-entries', {
        params: { path: { org_id: organizationId }, query: { page, limit: ENTRY_PAGE_SIZE } },
      }),
    );
  // The first page says how many there are, and so where the newest are.
  const first = await read(1);
  const total = first.pagination.total;
  // Past the end (entries deleted meanwhile): the last page.
  const page = Math.min(shown, pageCount(total, ENTRY_PAGE_SIZE));
  const window = newestFirstWindow(total, ENTRY_PAGE_SIZE, page);
  const items: PriceEntry[] = [];
  for (const number of window.pages) items.push(...(number === 1 ? first.data : (await read(number)).data));
  return { rows: newestFirstRows(items, window), total, page };
}

function muted(text: string): ComponentChildren {
  return <span class="muted">{text}</span>;
}

function price(value: number | null, unset: string): ComponentChildren {
  return value === null ? muted(unset) : String(value);
}

/** The link that opens an entry's details on this page, keeping the rest of the URL. */
export function useEntryHref(): (entryId: string | undefined) => string {
  const { path, query } = useLocation();
  return (entryId) => withQuery(path, query, { entry: entryId });
}

function EntryRow({
  organizationId,
  entry,
  mayEdit,
  onEdit,
  onDeleted,
}: {
  organizationId: string;
  entry: PriceEntry;
  mayEdit: boolean;
  onEdit(entry: PriceEntry): void;
  onDeleted(entry: PriceEntry): void;
}) {
  const deletion = useAction();
  const href = useEntryHref();
  const remove = async () => {
    const path = { org_id: organizationId, entry_id: entry.id };
    if (await deletion.run(() => call(management.DELETE('/organizations/{org_id}/price-entries/{entry_id}', { params: { path } }))))
      onDeleted(entry);
  };
  return (
    <tr id={`price-entry-${entry.id}`}>
      <td>{entry.provider ?? muted('any')}</td>
      <td>
        <a href={href(entry.id)} aria-label={`Price entry ${entry.model}${entry.provider ? ` of ${entry.provider}` : ''}`}>
          <code>{entry.model}</code>
        </a>
      </td>
      <td class="number">{String(entry.input_price)}</td>
      <td class="number">{String(entry.output_price)}</td>
      <td class="number">{price(entry.cache_read_price, 'input')}</td>
      <td class="number">{price(entry.cache_creation_price, 'input')}</td>
      <td class="number">{price(entry.request_price, 'none')}</td>
      <td>{entry.currency}</td>
      <td>{entry.valid_from === null ? muted('always') : formatUtc(entry.valid_from)}</td>
      <td>{entry.valid_to === null ? muted('open-ended') : formatUtc(entry.valid_to)}</td>
      {mayEdit && (
        <td>
          <div class="row-actions">
            <button type="button" aria-label={`Edit price entry ${entry.model}`} onClick={() => onEdit(entry)}>
              Edit
            </button>
            <ConfirmButton
              label="Delete"
              accessibleLabel={`Delete price entry ${entry.model}`}
              question={`Delete the price of ${entry.model}? Calls ingested from now on are priced without it; spans it priced keep their cost.`}
              confirmLabel="Yes, delete"
              busy={deletion.busy}
              onConfirm={remove}
            />
          </div>
          <ActionError error={deletion.error} context="Not deleted" />
        </td>
      )}
    </tr>
  );
}

export interface PriceEntryTableProps {
  organizationId: string;
  mayEdit: boolean;
  /** Bumped by the page after a change: the table reads its page again. */
  version: number;
  onEdit(entry: PriceEntry): void;
  onDeleted(entry: PriceEntry): void;
}

export function PriceEntryTable({ organizationId, mayEdit, version, onEdit, onDeleted }: PriceEntryTableProps) {
  const [shown, setShown] = useState(1);
  const entries = useAsync(() => loadEntries(organizationId, shown), [organizationId, shown, version]);
  if (entries.error)
    return (
      <p role="alert" class="error">
        The price entries could not be loaded: {entries.error.message}
      </p>
    );
  if (!entries.data) return <p aria-busy="true">Loading the price entries…</p>;
  const { rows, total, page } = entries.data;
  if (total === 0) return <p>No price entry yet: the default price book prices every call it knows.</p>;
  const pages = pageCount(total, ENTRY_PAGE_SIZE);
  const first = (page - 1) * ENTRY_PAGE_SIZE + 1;
  return (
    <>
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Price entries">
        <table class="management-table" data-testid="price-entries">
          <caption class="visually-hidden">Price entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Model</th>
              <th scope="col" class="number">
                Input
              </th>
              <th scope="col" class="number">
                Output
              </th>
              <th scope="col" class="number">
                Cache read
              </th>
              <th scope="col" class="number">
                Cache creation
              </th>
              <th scope="col" class="number">
                Per request
              </th>
              <th scope="col">Currency</th>
              <th scope="col">Valid from</th>
              <th scope="col">Valid to</th>
              {mayEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <EntryRow
                key={entry.id}
                organizationId={organizationId}
                entry={entry}
                mayEdit={mayEdit}
                onEdit={onEdit}
                onDeleted={onDeleted}
              />
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Price entry pages">
        <button type="button" disabled={page <= 1 || entries.loading} onClick={() => setShown(page - 1)}>
          Newer
        </button>
        <span>
          {first}–{first + rows.length - 1} of {total}, newest first (page {page} of {pages})
        </span>
        <button type="button" disabled={page >= pages || entries.loading} onClick={() => setShown(page + 1)}>
          Older
        </button>
      </nav>
    </>
  );
}

/** One entry's fields, from a link naming it (the effective price, a span's price); a deleted one says so. */
export function PriceEntryDetail({
  organizationId,
  entryId,
  mayEdit,
  version,
  onEdit,
}: {
  organizationId: string;
  entryId: string;
  mayEdit: boolean;
  version: number;
  onEdit(entry: PriceEntry): void;
}) {
  const href = useEntryHref();
  const heading = useRef<HTMLHeadingElement>(null);
  const entry = useAsync(
    () =>
      call(
        management.GET('/organizations/{org_id}/price-entries/{entry_id}', {
          params: { path: { org_id: organizationId, entry_id: entryId } },
        }),
      ),
    [organizationId, entryId, version],
  );
  useEffect(() => {
    // Opened by a link further down the page (or on another): brought into view.
    heading.current?.scrollIntoView({ block: 'start' });
  }, [entryId]);
  const data = entry.data;
  return (
    <section class="price-entry-detail" aria-labelledby="price-entry-detail-title" data-testid="price-entry-detail">
      <h3 id="price-entry-detail-title" ref={heading}>
        Price entry <code>{entryId}</code>
      </h3>
      {entry.error &&
        (entry.error instanceof ApiError && entry.error.status === 404 ? (
          <p>Not among the organization's entries: it was deleted (the spans it priced keep its id) or never was one of them.</p>
        ) : (
          <p role="alert" class="error">
            The price entry could not be loaded: {entry.error.message}
          </p>
        ))}
      {!data && !entry.error && <p aria-busy="true">Loading the price entry…</p>}
      {data && (
        <dl class="facts">
          <dt>Provider</dt>
          <dd>{data.provider ?? muted('any')}</dd>
          <dt>Model</dt>
          <dd>
            <code>{data.model}</code>
          </dd>
          <dt>Per million input tokens</dt>
          <dd>
            {data.input_price} {data.currency}
          </dd>
          <dt>Per million output tokens</dt>
          <dd>
            {data.output_price} {data.currency}
          </dd>
          <dt>Per million cache read tokens</dt>
          <dd>{data.cache_read_price === null ? muted('the input price') : `${data.cache_read_price} ${data.currency}`}</dd>
          <dt>Per million cache creation tokens</dt>
          <dd>{data.cache_creation_price === null ? muted('the input price') : `${data.cache_creation_price} ${data.currency}`}</dd>
          <dt>Per request</dt>
          <dd>{data.request_price === null ? muted('none') : `${data.request_price} ${data.currency}`}</dd>
          <dt>Valid from</dt>
          <dd>{data.valid_from === null ? muted('always') : formatUtc(data.valid_from)}</dd>
          <dt>Valid to</dt>
          <dd>{data.valid_to === null ? muted('open-ended') : formatUtc(data.valid_to)}</dd>
          <dt>Last changed</dt>
          <dd>{formatUtc(data.updated_at)}</dd>
        </dl>
      )}
      <div class="row-actions">
        {data && mayEdit && (
          <button type="button" onClick={() => onEdit(data)}>
            Edit this entry
          </button>
        )}
        <a href={href(undefined)}>Close the entry</a>
      </div>
    </section>
  );
}
