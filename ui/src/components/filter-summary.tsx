// The filter of a view that shows it without editing it (the metrics view): the filter as text,
// a link to the traces view with the same application, range and filter to edit it there, and a
// button that clears it.
import { useLocation } from 'preact-iso';
import { describeFilter } from '../describe-filter';
import { filterQuery, readFilter, sharedViewQuery } from '../view-query';
import { withQuery } from './application-picker';

export function FilterSummary() {
  const { path, query, route } = useLocation();
  const { filter, problem } = readFilter(query);
  const tracesLink = withQuery('/ui/traces', sharedViewQuery(query, true), {});
  return (
    <div class="filter-summary" data-testid="active-filter">
      {problem ? (
        <span role="alert" class="error">
          {problem}.
        </span>
      ) : filter ? (
        <span>
          Filter: <code data-testid="filter-text">{describeFilter(filter)}</code>
        </span>
      ) : (
        <span>No filter: every trace of the window.</span>
      )}
      <a href={tracesLink}>{filter || problem ? 'Edit the filter in Traces' : 'Build a filter in Traces'}</a>
      {(filter || problem) && (
        <button type="button" onClick={() => route(withQuery(path, query, filterQuery(undefined)))}>
          Clear the filter
        </button>
      )}
    </div>
  );
}
