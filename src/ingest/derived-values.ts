// How a derived span field reads an attribute value: as text (unit, billing.*, model, …) or as a
// number (cost, usage.amount).
import type { AttributeValue } from './otlp-request.js';

/** A derived text field: strings as they are, numbers and booleans as their text, arrays and lists as JSON. */
export function textOf(value: AttributeValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A derived numeric field: a finite number, or text that reads as one; anything else is null. */
export function numberOf(value: AttributeValue | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value)) {
    const number = Number(value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}
