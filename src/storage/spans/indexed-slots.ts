// Indexed attribute slots on the span side: the slot columns of table `spans`, which value of an
// attribute a slot keeps, and which filter values a ready slot can answer exactly. A slot holds
// the attribute's value when that is a JSON string of at most SLOT_VALUE_MAX_LENGTH UTF-16 code
// units without lone surrogates, else NULL: the ingestion writer (src/ingest/span-mapping.ts)
// and the backfill (slot-backfill.ts) both follow that rule, and a query only ever asks a slot
// for a value that rule keeps, so an index lookup answers exactly what the JSON path answers.
import type { AttributeSource } from '../../filter/fields.js';
import { canOnlyBeStringText } from '../sql/dialect.js';

/** How many attribute keys one application can index (the management document's maxItems). */
export const INDEXED_SLOT_COUNT = 3;

export type SlotNumber = 1 | 2 | 3;

export const SLOT_NUMBERS: readonly SlotNumber[] = [1, 2, 3];

export type SlotColumn = `indexed_value_${SlotNumber}`;

export const SLOT_COLUMNS: readonly SlotColumn[] = SLOT_NUMBERS.map((slot) => `indexed_value_${slot}` as const);

export function slotColumn(slot: SlotNumber): SlotColumn {
  return `indexed_value_${slot}`;
}

/**
 * The longest value a slot keeps, in UTF-16 code units: such a string has at most as many
 * characters, so it always fits VARCHAR(255) on MariaDB (which counts characters).
 */
export const SLOT_VALUE_MAX_LENGTH = 255;

/** One slot in use: the attribute whose values it keeps. */
export interface IndexedSlot {
  slot: SlotNumber;
  source: AttributeSource;
  key: string;
  /**
   * When the slot was given this key (epoch milliseconds): the rows of trace-slot-values.ts are
   * filed under it, so that values a slot held for an earlier key are never read as this key's.
   */
  generation: number;
}

/** A UTF-16 surrogate without its other half: not text MariaDB or SQLite can keep as it is. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string is one a slot keeps (and so one a slot lookup can find). */
export function keptBySlot(text: string): boolean {
  return text.length <= SLOT_VALUE_MAX_LENGTH && !LONE_SURROGATE.test(text);
}

/** What slot k stores for an attribute value (undefined: the span lacks the attribute). */
export function slotValue(value: unknown): string | null {
  return typeof value === 'string' && keptBySlot(value) ? value : null;
}

/**
 * Whether an `eq`/`in` value can be answered from a ready slot: only a string attribute can have
 * it as its text form (not a number literal, true/false, or JSON array/object text), and a
 * string equal to it is one the slot keeps.
 */
export function answerableBySlot(value: string): boolean {
  return canOnlyBeStringText(value) && keptBySlot(value);
}

/** The ready slot that keeps this attribute, if any. */
export function slotFor(slots: readonly IndexedSlot[] | undefined, source: AttributeSource, key: string): IndexedSlot | undefined {
  return slots?.find((slot) => slot.source === source && slot.key === key);
}
