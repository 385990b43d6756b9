// The filter builder's editable tree and its edits, apart from any view: a draft the user edits
// (groups, NOT nodes, conditions whose value is the text typed) and its conversions from and to
// the engine's FilterNode (openapi/engine.yaml). Edits return a new tree; nodes are found by id.
// Filters are plain JSON here (this module imports nothing, so the tests load it as it is); the
// engine checks their shape and names any problem in a 422.

export type Join = 'and' | 'or';

export interface DraftGroup {
  kind: 'group';
  id: string;
  join: Join;
  children: DraftNode[];
}

export interface DraftNot {
  kind: 'not';
  id: string;
  child: DraftNode;
}

export interface DraftCondition {
  kind: 'condition';
  id: string;
  field: string;
  op: string;
  /** The text typed; for a list operator one value per line. */
  value: string;
}

/** A part of a filter the builder does not recognise (a hand-edited URL): kept as it is. */
export interface DraftRaw {
  kind: 'raw';
  id: string;
  node: unknown;
}

export type DraftNode = DraftGroup | DraftNot | DraftCondition | DraftRaw;

/** How operators treat the value; from the engine document (ui/src/filter-vocabulary.ts). */
export interface OperatorKinds {
  listOperators: readonly string[];
  presenceOperators: readonly string[];
}

let lastId = 0;
function nextId(): string {
  lastId += 1;
  return `f${lastId}`;
}

export function emptyGroup(join: Join = 'and'): DraftGroup {
  return { kind: 'group', id: nextId(), join, children: [] };
}

export function newCondition(field = '', op = 'eq'): DraftCondition {
  return { kind: 'condition', id: nextId(), field, op, value: '' };
}

function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => String(item)).join('\n');
  return value === undefined || value === null ? '' : String(value);
}

function toDraftNode(node: unknown): DraftNode {
  if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or') && Array.isArray(record[keys[0]])) {
      return { kind: 'group', id: nextId(), join: keys[0], children: (record[keys[0]] as unknown[]).map(toDraftNode) };
    }
    if (keys.length === 1 && keys[0] === 'not') return { kind: 'not', id: nextId(), child: toDraftNode(record.not) };
    if (
      typeof record.field === 'string' &&
      typeof record.op === 'string' &&
      keys.every((key) => key === 'field' || key === 'op' || key === 'value')
    ) {
      return { kind: 'condition', id: nextId(), field: record.field, op: record.op, value: valueText(record.value) };
    }
  }
  return { kind: 'raw', id: nextId(), node };
}

/** The draft of a filter: always a group at the top, which the builder shows as the root. */
export function toDraft(filter: unknown): DraftGroup {
  if (filter === undefined) return emptyGroup();
  const node = toDraftNode(filter);
  return node.kind === 'group' ? node : { kind: 'group', id: nextId(), join: 'and', children: [node] };
}

function fromDraftNode(node: DraftNode, kinds: OperatorKinds): unknown {
  switch (node.kind) {
    case 'group':
      return { [node.join]: node.children.map((child) => fromDraftNode(child, kinds)) };
    case 'not':
      return { not: fromDraftNode(node.child, kinds) };
    case 'raw':
      return node.node;
    case 'condition': {
      const field = node.field.trim();
      if (kinds.presenceOperators.includes(node.op)) return { field, op: node.op };
      // Values are sent as text: the engine reads a numeric text as a number where it compares numbers.
      if (kinds.listOperators.includes(node.op)) return { field, op: node.op, value: node.value.split('\n').filter((line) => line !== '') };
      return { field, op: node.op, value: node.value };
    }
  }
}

/**
 * The engine filter of a draft: none for an empty root group, the only member of a root group
 * holding one (the same meaning, and the form a single condition is written in), else the tree.
 */
export function fromDraft(root: DraftGroup, kinds: OperatorKinds): unknown {
  if (root.children.length === 0) return undefined;
  if (root.children.length === 1) return fromDraftNode(root.children[0], kinds);
  return fromDraftNode(root, kinds);
}

/** The tree with the node `id` replaced by `change(node)` (undefined removes it). */
function mapNode(node: DraftNode, id: string, change: (node: DraftNode) => DraftNode | undefined): DraftNode | undefined {
  if (node.id === id) return change(node);
  if (node.kind === 'group') {
    const children = node.children.flatMap((child) => {
      const next = mapNode(child, id, change);
      return next ? [next] : [];
    });
    return children.length === node.children.length && children.every((child, index) => child === node.children[index])
      ? node
      : { ...node, children };
  }
  if (node.kind === 'not') {
    const child = mapNode(node.child, id, change);
    // A NOT node whose member is removed goes with it.
    if (!child) return undefined;
    return child === node.child ? node : { ...node, child };
  }
  return node;
}

function edit(root: DraftGroup, id: string, change: (node: DraftNode) => DraftNode | undefined): DraftGroup {
  if (root.id === id) {
    const next = change(root);
    return next?.kind === 'group' ? next : emptyGroup(root.join);
  }
  return (mapNode(root, id, change) as DraftGroup | undefined) ?? emptyGroup(root.join);
}

/** Adds `child` at the end of the group `groupId`. */
export function addChild(root: DraftGroup, groupId: string, child: DraftNode): DraftGroup {
  return edit(root, groupId, (node) => (node.kind === 'group' ? { ...node, children: [...node.children, child] } : node));
}

export function removeNode(root: DraftGroup, id: string): DraftGroup {
  if (root.id === id) return emptyGroup(root.join);
  return edit(root, id, () => undefined);
}

export function setJoin(root: DraftGroup, groupId: string, join: Join): DraftGroup {
  return edit(root, groupId, (node) => (node.kind === 'group' ? { ...node, join } : node));
}

export function updateCondition(
  root: DraftGroup,
  id: string,
  changes: Partial<Pick<DraftCondition, 'field' | 'op' | 'value'>>,
): DraftGroup {
  return edit(root, id, (node) => (node.kind === 'condition' ? { ...node, ...changes } : node));
}

/** Wraps the node `id` in a NOT node, or unwraps it when it is one. */
export function toggleNot(root: DraftGroup, id: string): DraftGroup {
  return edit(root, id, (node) => (node.kind === 'not' ? node.child : { kind: 'not', id: nextId(), child: node }));
}

/**
 * A place in a filter (the part of a 422's `loc` after `["body", "filter"]`) in words, with rows
 * counted from 1: `["or", 1, "value"]` is `row 2 of the OR group, value`.
 */
export function filterLocText(loc: ReadonlyArray<string | number>): string {
  const words: string[] = [];
  for (let index = 0; index < loc.length; index += 1) {
    const part = loc[index];
    const next = loc[index + 1];
    if ((part === 'and' || part === 'or') && typeof next === 'number') {
      words.push(`row ${next + 1} of the ${part.toUpperCase()} group`);
      index += 1;
    } else if (part === 'not') words.push('inside NOT');
    else words.push(typeof part === 'number' ? `item ${part + 1}` : part);
  }
  return words.join(', ');
}

/**
 * The draft node a filter `loc` (after `["body", "filter"]`) points at, for the builder to mark it:
 * the deepest node the path reaches, read as fromDraft sends the draft (a root group of one member
 * is sent as that member). Undefined when the path leaves the draft (it was edited meanwhile).
 */
export function draftNodeAt(root: DraftGroup, loc: ReadonlyArray<string | number>): DraftNode | undefined {
  let node: DraftNode = root.children.length === 1 ? root.children[0] : root;
  for (let index = 0; index < loc.length; index += 1) {
    const part = loc[index];
    if (node.kind === 'group' && part === node.join && typeof loc[index + 1] === 'number') {
      const child: DraftNode | undefined = node.children[loc[index + 1] as number];
      if (!child) return node;
      node = child;
      index += 1;
    } else if (node.kind === 'not' && part === 'not') node = node.child;
    else break;
  }
  return node;
}
