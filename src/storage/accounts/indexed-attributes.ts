// An application's indexed attribute slots, as kept in applications.indexed_attributes_state
// (JSON text; null when none was ever set): the attribute paths in the order the application
// gave them, and per slot the path it keeps, since when, and whether its backfill is complete.
// A slot is ready (queries may use it) only when every stored span of the application has it
// filled by the current key; until then queries read the JSON (src/storage/spans/slots/slot-backfill.ts
// fills it). A path that stays keeps its slot and readiness; a new path takes a free slot, which
// the backfill rewrites whole (so values of a removed path are never read as the new one's).
import { resolveField } from '../../filter/fields.js';
import { INDEXED_SLOT_COUNT, SLOT_NUMBERS, type IndexedSlot, type SlotNumber } from '../spans/indexed-slots.js';

export interface SlotState {
  /** `span_attributes.<key>` or `resource_attributes.<key>`. */
  path: string;
  /** Epoch milliseconds of the change that gave the slot this path (the backfill waits past it). */
  since: number;
  ready: boolean;
  /** The backfill's progress: spans of the application with seq up to this are done; null: not started. */
  after_seq: string | null;
}

export interface IndexedAttributesState {
  /** The paths, as the application last set them. */
  paths: string[];
  /** Slot k is slots[k - 1]; null when free. */
  slots: Array<SlotState | null>;
}

export const NO_INDEXED_ATTRIBUTES: IndexedAttributesState = { paths: [], slots: SLOT_NUMBERS.map(() => null) };

export function parseIndexedAttributes(text: string | null | undefined): IndexedAttributesState {
  if (text === null || text === undefined || text === '') return NO_INDEXED_ATTRIBUTES;
  const parsed = JSON.parse(text) as IndexedAttributesState;
  const slots = SLOT_NUMBERS.map((slot) => parsed.slots[slot - 1] ?? null);
  return { paths: parsed.paths, slots };
}

export function serializeIndexedAttributes(state: IndexedAttributesState): string | null {
  return state.paths.length === 0 && state.slots.every((slot) => slot === null) ? null : JSON.stringify(state);
}

function slotOf(slot: SlotNumber, entry: SlotState): IndexedSlot {
  const resolved = resolveField(entry.path);
  if (!resolved.ok || resolved.field.kind !== 'attribute')
    throw new Error(`stored indexed attribute path is not an attribute: ${entry.path}`);
  return { slot, source: resolved.field.source, key: resolved.field.key, generation: entry.since };
}

/** The slots in use (ready or not): what the span writer fills. */
export function writtenSlots(state: IndexedAttributesState): IndexedSlot[] {
  return SLOT_NUMBERS.flatMap((slot) => {
    const entry = state.slots[slot - 1];
    return entry ? [slotOf(slot, entry)] : [];
  });
}

/** The ready slots: what queries may read instead of the attribute JSON. */
export function readySlots(state: IndexedAttributesState): IndexedSlot[] {
  return SLOT_NUMBERS.flatMap((slot) => {
    const entry = state.slots[slot - 1];
    return entry?.ready ? [slotOf(slot, entry)] : [];
  });
}

/** The slot that keeps an attribute path, and whether it is ready; undefined when no slot keeps it. */
export function slotOfPath(state: IndexedAttributesState, path: string): { slot: IndexedSlot; ready: boolean } | undefined {
  const found = writtenSlots(state).find((slot) => state.slots[slot.slot - 1]?.path === path);
  return found && { slot: found, ready: state.slots[found.slot - 1]?.ready === true };
}

/**
 * The state after the application sets its paths (already validated: at most
 * INDEXED_SLOT_COUNT distinct attribute paths). Kept paths keep their slot; a new path takes
 * the lowest free slot, not ready, its backfill not started.
 */
export function withPaths(state: IndexedAttributesState, paths: string[], now: number): IndexedAttributesState {
  if (paths.length > INDEXED_SLOT_COUNT) throw new Error(`more than ${INDEXED_SLOT_COUNT} indexed attributes`);
  const slots = state.slots.map((entry) => (entry && paths.includes(entry.path) ? entry : null));
  for (const path of paths) {
    if (slots.some((entry) => entry?.path === path)) continue;
    const free = slots.findIndex((entry) => entry === null);
    slots[free] = { path, since: now, ready: false, after_seq: null };
  }
  return { paths: [...paths], slots };
}

/** The state of a new application: it has no spans yet, so every slot is ready at once. */
export function initialIndexedAttributes(paths: string[], now: number): IndexedAttributesState {
  const state = withPaths(NO_INDEXED_ATTRIBUTES, paths, now);
  return { ...state, slots: state.slots.map((entry) => entry && { ...entry, ready: true }) };
}
