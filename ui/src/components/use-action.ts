// Runs a change the user asked for (a create, an edit, a delete) and keeps what the view shows
// about it: busy while it runs, then the service's message if it failed (ApiError carries it),
// and a 422's issues for a form that shows each beside its field.
import { useState } from 'preact/hooks';
import { ApiError, type ValidationIssue } from '../api';

export interface Action {
  busy: boolean;
  error?: string;
  /** The issues of the last failure when it was a 422; empty otherwise. */
  issues: ValidationIssue[];
  /** Runs `change`; resolves true when it succeeded. A failure is kept in `error`, never thrown. */
  run(change: () => Promise<unknown>): Promise<boolean>;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ error: string; issues: ValidationIssue[] }>();
  return {
    busy,
    error: failure?.error,
    issues: failure?.issues ?? [],
    async run(change) {
      setBusy(true);
      setFailure(undefined);
      try {
        await change();
        return true;
      } catch (thrown) {
        setFailure({
          error: thrown instanceof Error ? thrown.message : String(thrown),
          issues: thrown instanceof ApiError ? thrown.issues : [],
        });
        return false;
      } finally {
        setBusy(false);
      }
    },
    clear: () => setFailure(undefined),
  };
}
