// The LLM calls of one of the organization's applications left without a cost over the last 24
// hours or 7 days, by model, provider and reason, with their count and total tokens (one
// POST /engine/analytics request, ui/src/prices.ts). The application is the URL's `?app=` when
// it is one of the organization's, else its first. Where a price entry would price the calls,
// whoever may change the organization gets "Add a price", which opens the entry form prefilled.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, engine } from '../api';
import { listApplications } from '../applications';
import { formatCount } from '../metrics-format';
import {
  mayBePriced,
  reasonLabel,
  UNPRICED_WINDOWS,
  unpricedRequest,
  unpricedRows,
  type UnpricedRow,
  type UnpricedWindow,
} from '../prices';
import { useAsync } from '../use-async';
import { withQuery } from './application-picker';

const WINDOW_LABELS: Record<UnpricedWindow, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days' };

function loadUnpriced(appId: string, window: UnpricedWindow) {
  const end = Date.now();
  const query = { start_time: new Date(end - UNPRICED_WINDOWS[window]).toISOString(), end_time: new Date(end).toISOString() };
  return call(engine.POST('/engine/analytics', { params: { header: { 'X-Vendor-App-Id': appId }, query }, body: unpricedRequest() })).then(
    unpricedRows,
  );
}

function tokens(value: number | null) {
  return value === null ? <span class="muted">none</span> : formatCount(value);
}

function UnpricedTable({
  appId,
  window,
  round,
  mayEdit,
  onAddPrice,
}: {
  appId: string;
  window: UnpricedWindow;
  round: number;
  mayEdit: boolean;
  onAddPrice(row: UnpricedRow): void;
}) {
  const unpriced = useAsync(() => loadUnpriced(appId, window), [appId, window, round]);
  if (unpriced.error)
    return (
      <p role="alert" class="error">
        The unpriced calls could not be loaded: {unpriced.error.message}
      </p>
    );
  if (!unpriced.data) return <p aria-busy="true">Loading the unpriced calls…</p>;
  const { rows, other } = unpriced.data;
  if (rows.length === 0) return <p class="muted">No unpriced LLM call in this window.</p>;
  return (
    <table class="management-table" aria-label={`Unpriced LLM calls, ${WINDOW_LABELS[window].toLowerCase()}`} data-testid="unpriced-calls">
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Provider</th>
          <th scope="col">Reason</th>
          <th scope="col" class="number">
            Calls
          </th>
          <th scope="col" class="number">
            Total tokens
          </th>
          {mayEdit && <th scope="col">Action</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.model}\u0000${row.provider}\u0000${row.reason}`}>
            <td>{row.model === null ? <span class="muted">none</span> : <code>{row.model}</code>}</td>
            <td>{row.provider ?? <span class="muted">none</span>}</td>
            <td>{reasonLabel(row.reason)}</td>
            <td class="number">{formatCount(row.calls)}</td>
            <td class="number">{tokens(row.tokens)}</td>
            {mayEdit && (
              <td>
                {mayBePriced(row) && (
                  <button type="button" aria-label={`Add a price for ${row.model ?? ''}`} onClick={() => onAddPrice(row)}>
                    Add a price
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
      {other && (
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              Other models and reasons
            </th>
            <td class="number">{formatCount(other.calls)}</td>
            <td class="number">{tokens(other.tokens)}</td>
            {mayEdit && <td />}
          </tr>
        </tfoot>
      )}
    </table>
  );
}

export function UnpricedCalls({
  organizationId,
  mayEdit,
  onAddPrice,
}: {
  organizationId: string;
  mayEdit: boolean;
  onAddPrice(row: UnpricedRow): void;
}) {
  const { path, query, route } = useLocation();
  const [window, setWindow] = useState<UnpricedWindow>('24h');
  const [round, setRound] = useState(0);
  const applications = useAsync(() => listApplications(organizationId), [organizationId]);
  if (applications.error)
    return (
      <p role="alert" class="error">
        Applications could not be loaded: {applications.error.message}
      </p>
    );
  if (!applications.data) return <p aria-busy="true">Loading applications…</p>;
  if (applications.data.length === 0) return <p class="muted">No application yet: its calls show here once it has one.</p>;
  const appId = applications.data.some((application) => application.id === query.app) ? query.app : applications.data[0]?.id;
  return (
    <div class="unpriced-calls">
      <form class="inline-form" aria-label="Unpriced calls of" onSubmit={(event) => event.preventDefault()}>
        <label>
          Application
          <select value={appId} onChange={(event) => route(withQuery(path, query, { app: (event.target as HTMLSelectElement).value }))}>
            {applications.data.map((application) => (
              <option key={application.id} value={application.id}>
                {application.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="segmented">
          <legend>Window</legend>
          {(Object.keys(WINDOW_LABELS) as UnpricedWindow[]).map((value) => (
            <label key={value}>
              <input type="radio" name="unpriced-window" value={value} checked={window === value} onChange={() => setWindow(value)} />
              {WINDOW_LABELS[value]}
            </label>
          ))}
        </fieldset>
        <button type="button" onClick={() => setRound((value) => value + 1)}>
          Refresh
        </button>
      </form>
      {appId && <UnpricedTable appId={appId} window={window} round={round} mayEdit={mayEdit} onAddPrice={onAddPrice} />}
    </div>
  );
}
