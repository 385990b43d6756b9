// Creates a price entry (createPriceEntry) or edits one (updatePriceEntry, only the fields
// changed): provider (empty: any), model or pattern, prices per million tokens by direction, a
// per-request price, currency and validity in UTC. A 422 shows each issue beside the field its
// `loc` names; the rest, and any other failure, above the buttons. Rules are the service's.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, management, type ValidationIssue } from '../api';
import { createBody, ENTRY_FIELDS, updateBody, type EntryDraft, type EntryField, type PriceEntry } from '../prices';
import { ActionError } from './action-error';
import { useAction } from './use-action';
import { humanMessage, issueText } from '../validation-messages';

export interface PriceEntryFormProps {
  organizationId: string;
  /** The entry edited; none for a new one. */
  entry?: PriceEntry;
  /** The fields as the form opens (an entry's, or a model to price prefilled). */
  initial: EntryDraft;
  onSaved(entry: PriceEntry): void;
  onCancel(): void;
}

/** Each issue under the form field its `loc` names (`["body", "valid_from"]`), the others apart. */
function placeIssues(issues: ValidationIssue[]): { byField: Partial<Record<EntryField, string>>; rest: ValidationIssue[] } {
  const byField: Partial<Record<EntryField, string>> = {};
  const rest: ValidationIssue[] = [];
  for (const issue of issues) {
    const field = issue.loc[0] === 'body' ? issue.loc[1] : undefined;
    if (typeof field === 'string' && (ENTRY_FIELDS as string[]).includes(field) && issue.loc.length === 2) {
      const name = field as EntryField;
      byField[name] = byField[name] ? `${byField[name]}; ${humanMessage(issue.msg)}` : humanMessage(issue.msg);
    } else rest.push(issue);
  }
  return { byField, rest };
}

export function PriceEntryForm({ organizationId, entry, initial, onSaved, onCancel }: PriceEntryFormProps) {
  const [draft, setDraft] = useState<EntryDraft>(initial);
  const [unchanged, setUnchanged] = useState(false);
  const action = useAction();
  const first = useRef<HTMLInputElement>(null);
  const title = entry ? `Edit price entry ${entry.id}` : 'New price entry';
  useEffect(() => {
    // Opened from a row or from an unpriced call further down: the form comes into view, ready to type.
    first.current?.scrollIntoView({ block: 'center' });
    first.current?.focus();
  }, []);

  const { byField, rest } = placeIssues(action.issues);
  const set = (field: EntryField) => (event: Event) => setDraft({ ...draft, [field]: (event.target as HTMLInputElement).value });
  /** The input's link to its issue, for screen readers and for styling. */
  const described = (field: EntryField) =>
    byField[field] ? { 'aria-invalid': true as const, 'aria-describedby': `price-entry-${field}-issue` } : {};
  const issueOf = (field: EntryField): ComponentChildren =>
    byField[field] ? (
      <span id={`price-entry-${field}-issue`} class="error field-issue">
        {byField[field]}
      </span>
    ) : null;

  const submit = async (event: Event) => {
    event.preventDefault();
    setUnchanged(false);
    if (entry) {
      const update = updateBody(entry, draft);
      if (Object.keys(update).length === 0) return setUnchanged(true);
      let saved: PriceEntry | undefined;
      const path = { org_id: organizationId, entry_id: entry.id };
      if (
        await action.run(async () => {
          saved = await call(management.PATCH('/organizations/{org_id}/price-entries/{entry_id}', { params: { path }, body: update }));
        })
      )
        onSaved(saved as PriceEntry);
      return;
    }
    let created: PriceEntry | undefined;
    if (
      await action.run(async () => {
        created = await call(
          management.POST('/organizations/{org_id}/price-entries', {
            params: { path: { org_id: organizationId } },
            body: createBody(draft),
          }),
        );
      })
    )
      onSaved(created as PriceEntry);
  };

  const text = (field: EntryField, label: string, attributes: Record<string, unknown> = {}, ref?: typeof first) => (
    <div class="field">
      <label>
        {label}
        <input ref={ref} value={draft[field]} onInput={set(field)} {...attributes} {...described(field)} />
      </label>
      {issueOf(field)}
    </div>
  );
  const price = (field: EntryField, label: string, required = false) =>
    text(field, label, { type: 'number', min: 0, step: 'any', required, placeholder: required ? undefined : 'the input price' });

  return (
    <form class="settings-form price-entry-form" onSubmit={submit} aria-label={title} data-testid="price-entry-form">
      <h3>{title}</h3>
      <div class="form-grid">
        {text('model', 'Model or pattern (* for any characters)', { required: true, maxLength: 256 }, first)}
        {text('provider', 'Provider (empty: any)', { maxLength: 256, placeholder: 'any' })}
        {text('currency', 'Currency (ISO 4217)', { required: true, maxLength: 3, size: 5 })}
      </div>
      <fieldset class="form-grid">
        <legend>Prices per million tokens</legend>
        {price('input_price', 'Input', true)}
        {price('output_price', 'Output', true)}
        {price('cache_read_price', 'Cache read (empty: input price)')}
        {price('cache_creation_price', 'Cache creation (empty: input price)')}
      </fieldset>
      <div class="form-grid">
        {text('request_price', 'Per request (empty: none)', { type: 'number', min: 0, step: 'any', placeholder: 'none' })}
        {text('valid_from', 'Valid from (UTC, empty: always)', { type: 'datetime-local', step: 1 })}
        {text('valid_to', 'Valid to (UTC, empty: open-ended)', { type: 'datetime-local', step: 1 })}
      </div>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {entry ? 'Save price entry' : 'Create price entry'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <span role="status" class="ok">
          {unchanged ? 'Nothing changed' : ''}
        </span>
      </div>
      {action.error && (
        <ActionError
          error={
            action.issues.length === 0
              ? action.error
              : rest.length > 0
                ? rest.map(issueText).join('; ')
                : Object.keys(byField).length === 1
                  ? 'correct the field marked above'
                  : 'correct the fields marked above'
          }
          context="The price entry was not saved"
        />
      )}
    </form>
  );
}
