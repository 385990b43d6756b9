// The organization's audit log, for its owners (listAuditEvents is `x-organization-role: owner`):
// newest first, a page at a time with "Load more" along `next_cursor`, optionally narrowed to one
// kind of resource. Each event says when, who, what operation on which resource, and the fields
// it changed (never a secret: the service does not record one).
import { useEffect, useState } from 'preact/hooks';
import { call, management } from '../api';
import type { components } from '../../../src/generated/management';
import { formatIsoText } from '../time-format';
import { useTimeZone } from '../use-time-zone';

type AuditEvent = components['schemas']['AuditEvent'];
type ResourceType = components['schemas']['AuditResourceType'];

// A Record, so a resource type added to the document fails the type check until it has a label here.
const RESOURCE_TYPE_LABELS: Record<ResourceType, string> = {
  organization: 'Organization',
  member: 'Members',
  application: 'Applications',
  api_key: 'API keys',
  price_entry: 'Price entries',
  repricing_job: 'Re-pricing jobs',
  webhook_endpoint: 'Webhook endpoints',
  budget: 'Budgets',
};

const RESOURCE_TYPES = Object.entries(RESOURCE_TYPE_LABELS).map(([value, label]) => ({ value: value as ResourceType, label }));

const PAGE_SIZE = 20;

function actorLabel(event: AuditEvent, currentUserId: string | undefined): string {
  if (event.actor.type === 'system') return 'the service';
  if (event.actor.id === currentUserId) return 'you';
  return `${event.actor.type === 'api_key' ? 'API key' : 'user'} ${event.actor.id ?? ''}`;
}

function shown(value: unknown): string {
  return value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** "name: Old → New" per changed field; a creation or deletion lists the fields it made or removed. */
function changeSummary(event: AuditEvent): string[] {
  const before = (event.before ?? {}) as Record<string, unknown>;
  const after = (event.after ?? {}) as Record<string, unknown>;
  if (event.before === null && event.after === null) return [];
  if (event.before === null) return Object.entries(after).map(([name, value]) => `${name}: ${shown(value)}`);
  if (event.after === null) return Object.entries(before).map(([name, value]) => `${name} was ${shown(value)}`);
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].map(
    (name) => `${name}: ${shown(before[name])} → ${shown(after[name])}`,
  );
}

function AuditRow({ event, currentUserId }: { event: AuditEvent; currentUserId: string | undefined }) {
  const changes = changeSummary(event);
  const zone = useTimeZone();
  return (
    <tr>
      <td>
        <time dateTime={event.occurred_at}>{formatIsoText(event.occurred_at, zone)}</time>
      </td>
      <td>{actorLabel(event, currentUserId)}</td>
      <td>
        <code>{event.operation_id}</code>
        {event.outcome === 'failure' && <span class="error"> (refused)</span>}
      </td>
      <td>
        {event.resource.type} <code>{event.resource.id}</code>
      </td>
      <td>
        {changes.length === 0 ? (
          <span class="muted">no field changed</span>
        ) : (
          <ul class="plain-list">
            {changes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

export function AuditLog({ organizationId, currentUserId }: { organizationId: string; currentUserId: string | undefined }) {
  const [resourceType, setResourceType] = useState<ResourceType | ''>('');
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const [round, setRound] = useState(0);

  const load = async (after: string | null, append: boolean, isCurrent: () => boolean) => {
    setLoading(true);
    setError(undefined);
    try {
      const query = { limit: PAGE_SIZE, ...(resourceType ? { resource_type: resourceType } : {}), ...(after ? { cursor: after } : {}) };
      const page = await call(
        management.GET('/organizations/{org_id}/audit-events', { params: { path: { org_id: organizationId }, query } }),
      );
      if (!isCurrent()) return;
      setEvents((previous) => (append ? [...previous, ...page.data] : page.data));
      setCursor(page.next_cursor);
    } catch (failure) {
      if (isCurrent()) setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      if (isCurrent()) setLoading(false);
    }
  };

  useEffect(() => {
    let current = true;
    void load(null, false, () => current);
    return () => {
      current = false;
    };
  }, [organizationId, resourceType, round]);

  return (
    <div class="audit-log">
      <form class="inline-form" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
        <label>
          Show
          <select
            value={resourceType}
            onChange={(event) => setResourceType((event.target as HTMLSelectElement).value as ResourceType | '')}
          >
            <option value="">Every change</option>
            {RESOURCE_TYPES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setRound((value) => value + 1)} disabled={loading}>
          Refresh
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          The audit log could not be loaded: {error}
        </p>
      )}
      {events.length === 0 && !loading && !error && <p>No change recorded yet.</p>}
      {events.length > 0 && (
        <table class="management-table" data-testid="audit-log">
          <caption class="visually-hidden">Audit log, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Operation</th>
              <th scope="col">Resource</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <AuditRow key={event.id} event={event} currentUserId={currentUserId} />
            ))}
          </tbody>
        </table>
      )}
      {loading && <p aria-busy="true">Loading the audit log…</p>}
      {cursor && !loading && (
        <button type="button" onClick={() => void load(cursor, true, () => true)}>
          Load more
        </button>
      )}
    </div>
  );
}
