// Every field of one span (SpanRecord, openapi/engine.yaml): ids, times, kind and status, service
// and scope, cost (with its currency when it was computed), billing and usage, model and token
// counts with where the cost came from, span and resource attributes, events, links and the
// counts the sender dropped. Every value is rendered as text.
import type { ComponentChildren } from 'preact';
import { formatCount } from '../metrics-format';
import { reasonLabel } from '../prices';
import { formatUnixNano } from '../time-format';
import { useTimeZone } from '../use-time-zone';
import { attributeText, formatDuration, formatSingleCost, spanCostCurrency } from '../trace-format';
import { PriceEntryLink } from './price-entry-link';
import type { SpanRecord } from './waterfall';

interface SpanPanelProps {
  span: SpanRecord;
  /** The trace's earliest start (Unix nanoseconds), for offsets. */
  traceStart: number;
  /** Whether the span's parent is among the trace's stored spans. */
  parentStored: boolean;
  onSelectParent(): void;
  onClose(): void;
}

type Entry = [label: string, value: ComponentChildren];

function shown(value: string | number | null | undefined): ComponentChildren {
  return value === null || value === undefined ? <span class="muted">none</span> : String(value);
}

function Fields({ entries }: { entries: Entry[] }) {
  return (
    <dl class="span-fields">
      {entries.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The model, provider and token counts that are set; none set (most spans are not LLM calls, and
 * spans stored before engine API 1.7.0 have none) gives no rows, so the group is left out.
 */
function modelEntries(span: SpanRecord): Entry[] {
  const { tokens } = span;
  const count = (value: number | null) => (value === null ? null : formatCount(value));
  const entries: Array<[string, ComponentChildren | null]> = [
    ['Model', span.model],
    ['Provider', span.provider],
    ['Input tokens', count(tokens.input)],
    ['Output tokens', count(tokens.output)],
    // Both cache counts are parts of the input count, not added to it.
    ['Cache read tokens (of input)', count(tokens.cache_read)],
    ['Cache creation tokens (of input)', count(tokens.cache_creation)],
    ['Total tokens', count(tokens.total)],
  ];
  return entries.filter((entry): entry is Entry => entry[1] !== null);
}

/**
 * Where an LLM call's cost came from: `reported` (vendor.cost), `computed` with the price it
 * used (the organization's entry, linked, or the default book's version, each with the provider
 * and model it matched), or unpriced with the reason. Spans stored before engine API 1.7.0 have
 * none of it, and no rows.
 */
function pricingEntries(span: SpanRecord): Entry[] {
  const { pricing } = span;
  const entries: Entry[] = [];
  if (span.cost_source !== null) entries.push(['Cost source', span.cost_source]);
  else if (pricing.unpriced_reason !== null)
    entries.push(['Cost source', <span class="error">unpriced: {reasonLabel(pricing.unpriced_reason)}</span>]);
  const matched = `${pricing.provider ?? 'any provider'} · ${pricing.model ?? ''}`;
  if (pricing.entry_id !== null)
    entries.push([
      'Price used',
      <>
        entry <PriceEntryLink entryId={pricing.entry_id} /> ({matched})
      </>,
    ]);
  else if (pricing.book !== null)
    entries.push([
      'Price used',
      <>
        default book <code>{pricing.book}</code> ({matched})
      </>,
    ]);
  return entries;
}

/**
 * The billing and usage fields that are set; a span with none of them (most spans carry no billing)
 * gives one line saying so rather than nine "none" rows.
 */
function billingEntries(span: SpanRecord): Entry[] {
  const { billing, usage } = span;
  const entries: Array<[string, string | number | null]> = [
    ['Billed resource type', billing.resource_type],
    ['Billed resource name', billing.resource_name],
    ['Billing service id', billing.service_id],
    ['Billing service name', billing.service_name],
    ['SKU id', billing.sku_id],
    ['SKU name', billing.sku_name],
    ['Region', billing.region],
    ['Usage amount', usage.amount],
    ['Usage unit', usage.unit],
  ];
  return entries.filter((entry) => entry[1] !== null).map(([label, value]) => [label, String(value)]);
}

/** Attributes whose values are multi-line text meant to be read as laid out (stack traces). */
const PREFORMATTED_KEYS = new Set(['exception.stacktrace', 'code.stacktrace']);

function AttributeValue({ name, value }: { name: string; value: unknown }) {
  const text = attributeText(value);
  if (PREFORMATTED_KEYS.has(name) || (typeof value === 'string' && value.includes('\n'))) {
    return (
      <pre class="attribute-pre" tabIndex={0}>
        {text}
      </pre>
    );
  }
  return <>{text}</>;
}

function Attributes({
  title,
  attributes,
  nested = false,
}: {
  title: string;
  attributes: Record<string, unknown> | null;
  nested?: boolean;
}) {
  const entries = Object.entries(attributes ?? {});
  return (
    <section>
      {nested ? <h4>{title}</h4> : <h3>{title}</h3>}
      {entries.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <table class="attribute-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([key, value]) => (
              <tr key={key}>
                <td class="attribute-key">
                  <code>{key}</code>
                </td>
                <td>
                  <AttributeValue name={key} value={value} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function SpanPanel({ span, traceStart, parentStored, onSelectParent, onClose }: SpanPanelProps) {
  const zone = useTimeZone();
  const billing = billingEntries(span);
  const offset = (span.span_start_time_unix_nano - traceStart) / 1e6;
  const model = modelEntries(span);
  // Only for an LLM call: a span with a model, provider or token counts.
  const pricing = model.length > 0 ? pricingEntries(span) : [];
  return (
    <aside class="span-panel" aria-labelledby="span-panel-title" data-testid="span-panel">
      <div class="span-panel-head">
        <h2 id="span-panel-title">{span.span_name}</h2>
        <button type="button" onClick={onClose}>
          Close span details
        </button>
      </div>
      <Fields
        entries={[
          ['Span id', <code>{span.span_id}</code>],
          [
            'Parent span id',
            span.parent_span_id === null ? (
              shown(null)
            ) : parentStored ? (
              <button type="button" class="link" onClick={onSelectParent}>
                <code>{span.parent_span_id}</code>
              </button>
            ) : (
              <>
                <code>{span.parent_span_id}</code> <span class="muted">(not stored)</span>
              </>
            ),
          ],
          ['Trace id', <code>{span.trace_id}</code>],
          ['Start', `${formatUnixNano(span.span_start_time_unix_nano, zone)} (+${formatDuration(offset)})`],
          ['End', formatUnixNano(span.span_end_time_unix_nano, zone)],
          ['Duration', formatDuration(span.duration_ms)],
          ['Kind', shown(span.span_kind)],
          ['Status', <span class={span.status_code === 'STATUS_CODE_ERROR' ? 'error' : undefined}>{shown(span.status_code)}</span>],
          ['Status message', shown(span.status_message)],
          ['Service', shown(span.service_name)],
          ['Unit', shown(span.unit)],
          ['Parent unit', shown(span.parent_unit)],
          ['Scope', shown(span.scope_name)],
          ['Scope version', shown(span.scope_version)],
        ]}
      />
      <section>
        <h3>Cost, billing and usage</h3>
        <Fields entries={[['Cost', span.cost === null ? '—' : formatSingleCost(span.cost, spanCostCurrency(span))], ...billing]} />
        {billing.length === 0 && (
          <p class="muted" data-testid="no-billing">
            No billing or usage data.
          </p>
        )}
      </section>
      {model.length > 0 && (
        <section data-testid="span-model">
          <h3>Model and tokens</h3>
          <Fields entries={[...model, ...pricing]} />
        </section>
      )}
      <Attributes title="Span attributes" attributes={span.span_attributes} />
      <Attributes title="Resource attributes" attributes={span.resource_attributes} />
      <section>
        <h3>Events</h3>
        {!span.events?.length ? (
          <p class="muted">None.</p>
        ) : (
          <ol class="span-events">
            {span.events.map((event, index) => (
              <li key={index}>
                <strong>{event.name}</strong> <span class="muted">at +{formatDuration((event.time_unix_nano - traceStart) / 1e6)}</span>
                {event.dropped_attributes_count > 0 && <span class="muted"> ({event.dropped_attributes_count} attributes dropped)</span>}
                {event.attributes && <Attributes title={`Attributes of event ${index + 1}`} attributes={event.attributes} nested />}
              </li>
            ))}
          </ol>
        )}
      </section>
      <section>
        <h3>Links</h3>
        {!span.links?.length ? (
          <p class="muted">None.</p>
        ) : (
          <ol class="span-links">
            {span.links.map((link, index) => (
              <li key={index}>
                <Fields
                  entries={[
                    ['Trace id', <code>{link.trace_id}</code>],
                    ['Span id', <code>{link.span_id}</code>],
                    ['Trace state', shown(link.trace_state)],
                    ['Attributes dropped', String(link.dropped_attributes_count)],
                  ]}
                />
                {link.attributes && <Attributes title={`Attributes of link ${index + 1}`} attributes={link.attributes} nested />}
              </li>
            ))}
          </ol>
        )}
      </section>
      <section>
        <h3>Dropped by the sender</h3>
        <Fields
          entries={[
            ['Attributes', shown(span.dropped_attributes_count)],
            ['Events', shown(span.dropped_events_count)],
            ['Links', shown(span.dropped_links_count)],
          ]}
        />
      </section>
    </aside>
  );
}
