// Loads data for a view and re-loads when its inputs change; a late answer to an earlier input is dropped.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface AsyncState<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  /** Loads again with the same inputs (after a change the view made). */
  reload(): void;
  /**
   * Loads again with the same inputs in the background (a periodic refresh): a failure keeps
   * what is shown, beside the error, so an open form in it is not lost to a passing outage.
   */
  refresh(): void;
}

export function useAsync<T>(load: () => Promise<T>, inputs: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const background = useRef(false);
  useEffect(() => {
    let current = true;
    const keepShown = background.current;
    background.current = false;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => {
        if (!current) return;
        const failure = error instanceof Error ? error : new Error(String(error));
        setState((previous) => (keepShown ? { data: previous.data, error: failure, loading: false } : { error: failure, loading: false }));
      },
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  return {
    ...state,
    reload: () => setRound((value) => value + 1),
    refresh: () => {
      background.current = true;
      setRound((value) => value + 1);
    },
  };
}
