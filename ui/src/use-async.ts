// Loads data for a view and re-loads when its inputs change; a late answer to an earlier input is dropped.
import { useEffect, useState } from 'preact/hooks';

export interface AsyncState<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  /** Loads again with the same inputs (after a change the view made). */
  reload(): void;
}

export function useAsync<T>(load: () => Promise<T>, inputs: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  return { ...state, reload: () => setRound((value) => value + 1) };
}
