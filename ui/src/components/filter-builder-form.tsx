// The filter builder's form, loaded when a view first shows a filter (ui/src/components/
// filter-builder.tsx): nested AND/OR groups, NOT nodes and conditions over the words of the engine
// document (ui/src/filter-vocabulary.ts). The user edits a draft (ui/src/filter-tree.ts) and
// applies it; `onChange` gets the new filter (undefined: no filter). The engine's objections to the
// applied filter mark the rows they name, until the draft is edited.
import { useEffect, useId, useState } from 'preact/hooks';
import type { FilterNode } from '../view-query';
import { humanMessage } from '../validation-messages';
import type { FilterIssue } from './filter-builder';
import {
  addChild,
  draftNodeAt,
  emptyGroup,
  fromDraft,
  newCondition,
  removeNode,
  setJoin,
  toDraft,
  toggleNot,
  updateCondition,
  type DraftCondition,
  type DraftGroup,
  type DraftNode,
  type Join,
} from '../filter-tree';
import type { FilterVocabulary } from '../filter-vocabulary';

export interface FilterFormProps {
  value: FilterNode | undefined;
  onChange(filter: FilterNode | undefined): void;
  traceFields: boolean;
  vocabulary: FilterVocabulary;
  issues: ReadonlyArray<FilterIssue>;
}

interface EditorContext {
  vocabulary: FilterVocabulary;
  fieldListId: string;
  change(update: (root: DraftGroup) => DraftGroup): void;
  /** The engine's objection to a node, by draft node id, in words. */
  invalid: ReadonlyMap<string, string>;
}

/** The message beside a node the engine objected to; its id describes the node's inputs. */
function NodeIssue({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span class="error filter-issue" id={id}>
      {message}
    </span>
  );
}

export function FilterForm({ value, onChange, traceFields, vocabulary: words, issues }: FilterFormProps) {
  const applied = JSON.stringify(value ?? null);
  // `base`: the draft of the applied filter; the draft differs from it once the user edits.
  const [base, setBase] = useState(() => ({ of: applied, draft: toDraft(value) }));
  const [draft, setDraft] = useState(base.draft);
  const fieldListId = useId();
  const restart = (filter: FilterNode | undefined, of: string) => {
    const fresh = toDraft(filter);
    setBase({ of, draft: fresh });
    setDraft(fresh);
  };
  // The applied filter changed elsewhere (URL, back button): start again from it.
  useEffect(() => {
    if (applied !== base.of) restart(value, applied);
  }, [applied]);

  const pending = draft !== base.draft;
  // The objections name the applied filter: they mark its rows until the user edits the draft.
  const invalid = new Map<string, string>();
  if (!pending) {
    for (const issue of issues) {
      const node = draftNodeAt(draft, issue.loc);
      if (node) invalid.set(node.id, [invalid.get(node.id), humanMessage(issue.msg)].filter(Boolean).join(' '));
    }
  }
  const context: EditorContext = { vocabulary: words, fieldListId, change: (update) => setDraft((current) => update(current)), invalid };
  const apply = (event: Event) => {
    event.preventDefault();
    // The draft's JSON has the FilterNode shape the builder offers; the engine checks the rest.
    onChange(fromDraft(draft, words) as FilterNode | undefined);
  };
  const fieldOptions = [...words.fields, ...(traceFields ? words.traceFields : []), ...words.attributePrefixes];
  return (
    <form class="filter-builder" aria-label="Filter" onSubmit={apply}>
      <datalist id={fieldListId}>
        {fieldOptions.map((field) => (
          <option key={field} value={field} />
        ))}
      </datalist>
      <GroupEditor group={draft} context={context} root />
      <div class="filter-actions">
        <button type="submit" class="primary">
          Apply filter
        </button>
        <button
          type="button"
          onClick={() => {
            restart(undefined, 'null');
            onChange(undefined);
          }}
          disabled={value === undefined && draft.children.length === 0}
        >
          Clear filter
        </button>
        {pending && <span class="muted">Changes not applied yet</span>}
      </div>
    </form>
  );
}

/** `negated`: the node is the member of a NOT node, which has its own "Remove NOT". */
function NodeEditor({ node, context, negated = false }: { node: DraftNode; context: EditorContext; negated?: boolean }) {
  switch (node.kind) {
    case 'group':
      return <GroupEditor group={node} context={context} negated={negated} />;
    case 'condition':
      return <ConditionEditor condition={node} context={context} negated={negated} />;
    case 'not':
      return (
        <div class="filter-not">
          <span class="filter-not-label">NOT</span>
          <NodeEditor node={node.child} context={context} negated />
          <button type="button" class="small" onClick={() => context.change((root) => toggleNot(root, node.id))}>
            Remove NOT
          </button>
        </div>
      );
    case 'raw':
      return (
        <div class={context.invalid.has(node.id) ? 'filter-raw invalid' : 'filter-raw'}>
          <span>Kept as written: </span>
          <code>{JSON.stringify(node.node)}</code>
          <button type="button" class="small" onClick={() => context.change((root) => removeNode(root, node.id))}>
            Remove
          </button>
          <NodeIssue id={`${node.id}-issue`} message={context.invalid.get(node.id)} />
        </div>
      );
  }
}

function GroupEditor({
  group,
  context,
  root = false,
  negated = false,
}: {
  group: DraftGroup;
  context: EditorContext;
  root?: boolean;
  negated?: boolean;
}) {
  const { change, vocabulary, invalid } = context;
  const issue = invalid.get(group.id);
  return (
    <fieldset
      class={`${root ? 'filter-group root' : 'filter-group'}${issue ? ' invalid' : ''}`}
      aria-invalid={issue ? true : undefined}
      aria-describedby={issue ? `${group.id}-issue` : undefined}
    >
      <legend>
        <label>
          {root ? 'Traces matching' : 'Group matching'}
          <select
            value={group.join}
            onChange={(event) => change((tree) => setJoin(tree, group.id, (event.target as HTMLSelectElement).value as Join))}
          >
            <option value="and">all of (AND)</option>
            <option value="or">any of (OR)</option>
          </select>
        </label>
      </legend>
      <NodeIssue id={`${group.id}-issue`} message={issue} />
      {group.children.length === 0 && (
        <p class="muted">
          {root
            ? 'No condition: every trace of the range.'
            : group.join === 'and'
              ? 'Empty: matches everything.'
              : 'Empty: matches nothing.'}
        </p>
      )}
      <ul class="filter-members">
        {group.children.map((child) => (
          <li key={child.id}>
            <NodeEditor node={child} context={context} />
          </li>
        ))}
      </ul>
      <div class="filter-group-actions">
        <button type="button" class="small" onClick={() => change((tree) => addChild(tree, group.id, newCondition()))}>
          Add condition
        </button>
        <button
          type="button"
          class="small"
          onClick={() => change((tree) => addChild(tree, group.id, emptyGroup(group.join === 'and' ? 'or' : 'and')))}
        >
          Add group
        </button>
        {!root && !negated && vocabulary.hasNot && (
          <button type="button" class="small" onClick={() => change((tree) => toggleNot(tree, group.id))}>
            Negate group
          </button>
        )}
        {!root && (
          <button type="button" class="small" onClick={() => change((tree) => removeNode(tree, group.id))}>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

function ConditionEditor({
  condition,
  context,
  negated = false,
}: {
  condition: DraftCondition;
  context: EditorContext;
  negated?: boolean;
}) {
  const { change, vocabulary, fieldListId, invalid } = context;
  const issue = invalid.get(condition.id);
  // Every input of a row the engine refused is marked and described by its message.
  const marked = issue ? { 'aria-invalid': true, 'aria-describedby': `${condition.id}-issue` } : {};
  const update = (changes: Partial<Pick<DraftCondition, 'field' | 'op' | 'value'>>) =>
    change((tree) => updateCondition(tree, condition.id, changes));
  const takesNoValue = vocabulary.presenceOperators.includes(condition.op);
  const takesList = vocabulary.listOperators.includes(condition.op);
  const operators = vocabulary.operators.includes(condition.op) ? vocabulary.operators : [condition.op, ...vocabulary.operators];
  return (
    <div class={issue ? 'filter-condition invalid' : 'filter-condition'} data-invalid={issue ? 'true' : undefined}>
      <input
        {...marked}
        type="text"
        aria-label="Field"
        placeholder="field or span_attributes.key"
        list={fieldListId}
        value={condition.field}
        spellcheck={false}
        autocomplete="off"
        onInput={(event) => update({ field: (event.target as HTMLInputElement).value })}
      />
      <select
        {...marked}
        aria-label="Operator"
        value={condition.op}
        onChange={(event) => update({ op: (event.target as HTMLSelectElement).value })}
      >
        {operators.map((op) => (
          <option key={op} value={op}>
            {op}
          </option>
        ))}
      </select>
      {takesList && (
        <textarea
          {...marked}
          aria-label="Values, one per line"
          rows={2}
          value={condition.value}
          onInput={(event) => update({ value: (event.target as HTMLTextAreaElement).value })}
        />
      )}
      {!takesList && !takesNoValue && (
        <input
          {...marked}
          type="text"
          aria-label="Value"
          value={condition.value}
          onInput={(event) => update({ value: (event.target as HTMLInputElement).value })}
        />
      )}
      {vocabulary.hasNot && !negated && (
        <button type="button" class="small" onClick={() => change((tree) => toggleNot(tree, condition.id))}>
          Negate
        </button>
      )}
      <button type="button" class="small" onClick={() => change((tree) => removeNode(tree, condition.id))}>
        Remove condition
      </button>
      <NodeIssue id={`${condition.id}-issue`} message={issue} />
    </div>
  );
}
