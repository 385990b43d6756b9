// exportOrganizationFocus (GET /organizations/{org_id}/focus-export): an organization's spend of
// one billing period as a FOCUS dataset (./focus-columns.ts), one row per UTC day, application and
// combination of the spend dimensions and currency, read from the spend roll-ups one application
// at a time (src/storage/spend/spend-reads.ts) and streamed as CSV (RFC 4180) or NDJSON.
import { Readable } from 'node:stream';
import type { operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { billingPeriod, type BillingPeriod } from '../request/billing-period.js';
import { activeApplicationsOf } from '../storage/accounts/applications.js';
import { findActiveOrganization } from '../storage/accounts/organizations.js';
import { readDailySpend, type DailySpendRow } from '../storage/spend/spend-reads.js';
import { SPEND_DIMENSIONS } from '../storage/spend/spend-rollups.js';
import { FOCUS_COLUMNS, FOCUS_VERSION, focusValues, type FocusValue } from './focus-columns.js';

type Format = 'csv' | 'ndjson';

const CONTENT_TYPES: Record<Format, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' };

/** A number as plain decimal text: FOCUS's numeric format has no exponent notation. */
export function plainDecimal(value: number): string {
  const text = String(value === 0 ? 0 : value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const plain =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return sign + plain;
}

/** One CSV field (RFC 4180): null is an empty field; a field with a comma, quote or line break is quoted. */
export function csvField(value: FocusValue): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? plainDecimal(value) : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (fields: readonly FocusValue[]): string => `${fields.map(csvField).join(',')}\r\n`;

function ndjsonLine(values: readonly FocusValue[]): string {
  return `${JSON.stringify(Object.fromEntries(FOCUS_COLUMNS.map((column, index) => [column.name, values[index] ?? null])))}\n`;
}

/** Null first, then by UTF-8 bytes: the same order on every database. */
function compareText(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Rows by day, then each spend dimension, then currency. */
export function compareDailyRows(a: DailySpendRow, b: DailySpendRow): number {
  if (a.dayStartNs !== b.dayStartNs) return a.dayStartNs < b.dayStartNs ? -1 : 1;
  for (const dimension of SPEND_DIMENSIONS) {
    const order = compareText(a.dimensions[dimension], b.dimensions[dimension]);
    if (order !== 0) return order;
  }
  return compareText(a.currency, b.currency);
}

async function* exportLines(
  deps: ServiceDeps,
  organization: { id: string; name: string },
  period: BillingPeriod,
  format: Format,
): AsyncGenerator<string> {
  if (format === 'csv') yield csvLine(FOCUS_COLUMNS.map((column) => column.name));
  // One application at a time: memory holds one application's month (its own snapshot), never the organization's.
  for (const application of await activeApplicationsOf(deps.knex, organization.id)) {
    const rows = (await readDailySpend(deps.knex, application.id, period.startNs, period.endNs)).sort(compareDailyRows);
    for (const row of rows) {
      const values = focusValues({ row, organization, application, period });
      yield format === 'csv' ? csvLine(values) : ndjsonLine(values);
    }
  }
}

export function exportOrganizationFocus(deps: ServiceDeps): OperationHandler<operations['exportOrganizationFocus']> {
  return async (request) => {
    const period = billingPeriod(request.query.billing_period, (deps.clock ?? Date.now)());
    const format: Format = request.query.format ?? 'csv';
    // Authorization has found the organization and the caller a member of it; it may have gone since.
    const organization = await findActiveOrganization(deps.knex, request.params.org_id);
    if (organization === undefined) throw new NotFoundError();
    const filename = `focus-${FOCUS_VERSION}-${organization.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${period.month}.${format}`;
    return {
      status: 200,
      headers: { 'content-type': CONTENT_TYPES[format], 'content-disposition': `attachment; filename="${filename}"` },
      body: Readable.from(exportLines(deps, { id: organization.id, name: organization.name }, period, format)),
    };
  };
}
