// /ui/organizations/:orgId/prices: what the organization's LLM calls cost. The effective price of
// a model, the organization's price entries (read by every member; created, edited and deleted
// by whoever may change the organization: the entry operations that write are
// `x-organization-role: owner`), one entry's details (`?entry=`), and the calls of an
// application (`?app=`) left unpriced, each with a way to price them.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { call, management } from '../api';
import { mayManageOrganization } from '../management';
import { draftFor, draftOf, EMPTY_DRAFT, type EntryDraft, type PriceEntry } from '../prices';
import { useAsync } from '../use-async';
import { withQuery } from '../components/application-picker';
import { EffectivePriceForm } from '../components/effective-price';
import { LoadFailure } from '../components/load-failure';
import { PriceEntryForm } from '../components/price-entry-form';
import { PriceEntryDetail, PriceEntryTable } from '../components/price-entry-table';
import { UnpricedCalls } from '../components/unpriced-calls';
// Its styles, ui/src/views/management.css, come with the first view (ui/src/main.tsx).

/** The entry form, when open: the entry it edits (none: a new one) and the texts it opens with. */
interface OpenForm {
  entry?: PriceEntry;
  initial: EntryDraft;
  /** A new form for each opening, even of the same entry. */
  key: number;
}

export function PricesView() {
  const { orgId } = useRoute().params;
  const { path, query, route } = useLocation();
  const organization = useAsync(() => call(management.GET('/organizations/{org_id}', { params: { path: { org_id: orgId } } })), [orgId]);
  const [form, setForm] = useState<OpenForm>();
  const [version, setVersion] = useState(0);

  if (organization.error) return <LoadFailure title="Prices" what="organization" message={organization.error.message} />;
  if (!organization.data) return <p aria-busy="true">Loading the organization…</p>;
  const org = organization.data;
  const mayEdit = mayManageOrganization(org.role);
  const open = (initial: EntryDraft, entry?: PriceEntry) => setForm({ entry, initial, key: (form?.key ?? 0) + 1 });
  const changed = () => setVersion((value) => value + 1);

  return (
    <section aria-labelledby="prices-heading">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/ui/">Organizations</a> <span aria-hidden="true">›</span> <a href={`/ui/organizations/${org.id}`}>{org.name}</a>{' '}
        <span aria-hidden="true">›</span> <span aria-current="page">Prices</span>
      </nav>
      <h1 id="prices-heading">Prices of {org.name}</h1>
      <p class="muted">
        An LLM call that reports no cost is priced at ingestion by the organization's price entry in force at its start, else by the default
        price book (in USD). Times on this page are UTC.
      </p>

      <h2>Effective price</h2>
      <EffectivePriceForm organizationId={org.id} />

      <h2>Price entries</h2>
      {query.entry && (
        <PriceEntryDetail
          organizationId={org.id}
          entryId={query.entry}
          mayEdit={mayEdit}
          version={version}
          onEdit={(entry) => open(draftOf(entry), entry)}
        />
      )}
      {mayEdit && !form && (
        <p>
          <button type="button" class="primary" onClick={() => open(EMPTY_DRAFT)}>
            New price entry
          </button>
        </p>
      )}
      {mayEdit && form && (
        <PriceEntryForm
          key={form.key}
          organizationId={org.id}
          entry={form.entry}
          initial={form.initial}
          onSaved={(entry) => {
            setForm(undefined);
            changed();
            // The entry just saved opens, so what was stored is seen.
            route(withQuery(path, query, { entry: entry.id }));
          }}
          onCancel={() => setForm(undefined)}
        />
      )}
      <PriceEntryTable
        organizationId={org.id}
        mayEdit={mayEdit}
        version={version}
        onEdit={(entry) => open(draftOf(entry), entry)}
        onDeleted={(entry) => {
          if (form?.entry?.id === entry.id) setForm(undefined);
          changed();
        }}
      />
      {!mayEdit && <p class="muted">Owners create, edit and delete the organization's price entries.</p>}

      <h2 id="unpriced-calls">Unpriced LLM calls</h2>
      <p class="muted">
        Calls of an application that carried a model or token counts but got no cost, by model, provider and reason.
        {mayEdit ? ' "Add a price" opens a new entry for the model.' : ''}
      </p>
      <UnpricedCalls organizationId={org.id} mayEdit={mayEdit} onAddPrice={(row) => open(draftFor(row))} />
    </section>
  );
}
