// Keeps what a view shows current while the user looks at it (docs/dashboard.md, "API keys"): a
// refresh when the page becomes visible again, and one every `intervalMs` while it stays visible.
// A hidden page (another tab, a minimized window) asks the service for nothing.
import { useEffect, useRef } from 'preact/hooks';

export function useRefreshWhileVisible(refresh: () => void, intervalMs: number): void {
  // The latest callback, so the timer need not restart at each render.
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const start = () => {
      timer = setInterval(() => latest.current(), intervalMs);
    };
    let visible = document.visibilityState === 'visible';
    const visibilityChanged = () => {
      // Only a change counts: browsers may repeat the event without one.
      if ((document.visibilityState === 'visible') === visible) return;
      visible = !visible;
      stop();
      if (!visible) return;
      latest.current();
      // Counted from this refresh, so the next one is a whole interval away.
      start();
    };
    document.addEventListener('visibilitychange', visibilityChanged);
    if (visible) start();
    return () => {
      stop();
      document.removeEventListener('visibilitychange', visibilityChanged);
    };
  }, [intervalMs]);
}
