// The filter builder every filtering view uses (docs/dashboard.md, "Traces and the filter
// builder"): <FilterBuilder value={filter} onChange={(next) => ...} />. `value` is the filter
// applied now (an engine FilterNode, undefined for none); `onChange` gets the filter the user
// applies. The form (ui/src/components/filter-builder-form.tsx) and the engine document's words
// it offers (ui/src/filter-vocabulary.ts) load together the first time a builder is shown, so the
// first view of the dashboard does not carry them.
import { loadFilterVocabulary } from '../filter-vocabulary';
import { useAsync } from '../use-async';
import type { FilterNode } from '../view-query';

export interface FilterBuilderProps {
  /** The filter applied now (undefined: none). A new value resets what the user was editing. */
  value: FilterNode | undefined;
  onChange(filter: FilterNode | undefined): void;
  /** Offer the trace-level fields (`trace.*`): true where the engine reads traces (the default). */
  traceFields?: boolean;
  /** The engine's objections to the applied filter (a 422's issues, `loc` after `["body", "filter"]`): the builder marks their rows. */
  issues?: ReadonlyArray<FilterIssue>;
}

export interface FilterIssue {
  loc: ReadonlyArray<string | number>;
  msg: string;
}

const loadForm = () => Promise.all([import('./filter-builder-form'), loadFilterVocabulary()]);

export function FilterBuilder({ value, onChange, traceFields = true, issues = [] }: FilterBuilderProps) {
  const loaded = useAsync(loadForm, []);
  if (loaded.error) {
    return (
      <p role="alert" class="error">
        The filter builder could not be loaded: {loaded.error.message}
      </p>
    );
  }
  if (!loaded.data) return <p aria-busy="true">Loading the filter builder…</p>;
  const [{ FilterForm }, vocabulary] = loaded.data;
  return <FilterForm value={value} onChange={onChange} traceFields={traceFields} vocabulary={vocabulary} issues={issues} />;
}
