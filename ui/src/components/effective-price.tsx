// The price a call of the organization gets (getEffectivePrice): a model, optionally its provider
// and a time (UTC; now when empty), and the answer: where the price comes from (one of the
// organization's entries, with a link to it, or the default book and its version, or none and
// why), the entry or book model and provider it matched, the currency and the prices.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import { formatUtc, instantOf, reasonLabel, type EffectivePrice } from '../prices';
import { ActionError } from './action-error';
import { useEntryHref } from './price-entry-table';
import { useAction } from './use-action';

function Answer({ price, model }: { price: EffectivePrice; model: string }) {
  const href = useEntryHref();
  const perMillion = (value: number | null): ComponentChildren =>
    value === null ? <span class="muted">none</span> : `${value} ${price.currency ?? ''}`.trim();
  let source: ComponentChildren;
  if (price.source === 'entry' && price.entry_id)
    source = (
      <>
        The organization's price entry{' '}
        <a href={href(price.entry_id)}>
          <code>{price.entry_id}</code>
        </a>
      </>
    );
  else if (price.source === 'default_book')
    source = (
      <>
        The default price book, <code>{price.book}</code>
      </>
    );
  else source = <span class="error">Unpriced: {reasonLabel(price.unpriced_reason)}</span>;
  return (
    <section aria-label={`Effective price of ${model}`} data-testid="effective-price">
      <dl class="facts">
        <dt>Source</dt>
        <dd>{source}</dd>
        <dt>At</dt>
        <dd>{formatUtc(price.at)}</dd>
        {price.source !== null && (
          <>
            <dt>Matched</dt>
            <dd>
              {price.provider ?? <span class="muted">any provider</span>} · <code>{price.model}</code>
            </dd>
            <dt>Currency</dt>
            <dd>{price.currency}</dd>
            <dt>Per million input tokens</dt>
            <dd>{perMillion(price.input_price)}</dd>
            <dt>Per million output tokens</dt>
            <dd>{perMillion(price.output_price)}</dd>
            <dt>Per million cache read tokens</dt>
            <dd>{perMillion(price.cache_read_price)}</dd>
            <dt>Per million cache creation tokens</dt>
            <dd>{perMillion(price.cache_creation_price)}</dd>
            <dt>Per request</dt>
            <dd>{perMillion(price.request_price)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

export function EffectivePriceForm({ organizationId }: { organizationId: string }) {
  const [model, setModel] = useState('');
  const [provider, setProvider] = useState('');
  const [at, setAt] = useState('');
  const [answer, setAnswer] = useState<{ price: EffectivePrice; model: string }>();
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const asked = model.trim();
    const instant = instantOf(at);
    const query = { model: asked, ...(provider.trim() ? { provider: provider.trim() } : {}), ...(instant ? { at: instant } : {}) };
    let price: EffectivePrice | undefined;
    const found = await action.run(async () => {
      price = await call(
        management.GET('/organizations/{org_id}/effective-price', { params: { path: { org_id: organizationId }, query } }),
      );
    });
    setAnswer(found && price ? { price, model: asked } : undefined);
  };
  return (
    <>
      <form class="inline-form" onSubmit={submit} aria-label="Effective price">
        <label>
          Model
          <input required maxLength={1024} value={model} onInput={(event) => setModel((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Provider (optional)
          <input maxLength={1024} value={provider} onInput={(event) => setProvider((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          At (UTC, empty: now)
          <input type="datetime-local" step={1} value={at} onInput={(event) => setAt((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Show the price
        </button>
        <ActionError error={action.error} context="The price could not be read" />
      </form>
      {answer && <Answer price={answer.price} model={answer.model} />}
    </>
  );
}
