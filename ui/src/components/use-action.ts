// Runs a change the user asked for (a create, an edit, a delete) and keeps what the view shows
// about it: busy while it runs, then the service's message if it failed (ApiError carries it).
import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error?: string;
  /** Runs `change`; resolves true when it succeeded. A failure is kept in `error`, never thrown. */
  run(change: () => Promise<unknown>): Promise<boolean>;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return {
    busy,
    error,
    async run(change) {
      setBusy(true);
      setError(undefined);
      try {
        await change();
        return true;
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : String(failure));
        return false;
      } finally {
        setBusy(false);
      }
    },
    clear: () => setError(undefined),
  };
}
