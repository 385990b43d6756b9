// The live view: the chosen application's spans as the service receives them, with pause and
// resume. The stream and the list (ui/src/components/live-panel.tsx) load with a dynamic import(),
// so the first view stays small; the style sheet is imported here, statically, because esbuild
// does not inject the CSS of lazily loaded modules.
import { ApplicationPicker, useSelectedApplication } from '../components/application-picker';
import { useAsync } from '../use-async';

export function Live() {
  const appId = useSelectedApplication();
  const panel = useAsync(() => import('../components/live-panel'), []);
  return (
    <section aria-labelledby="live-title" class="live-view">
      <h1 id="live-title">Live</h1>
      <div class="toolbar">
        <ApplicationPicker />
      </div>
      {!appId ? (
        <p>Choose an application to see its spans arrive.</p>
      ) : panel.error ? (
        <p role="alert" class="error">
          The live view could not be loaded: {panel.error.message}
        </p>
      ) : panel.data ? (
        <panel.data.LivePanel key={appId} appId={appId} />
      ) : (
        <p aria-busy="true" class="muted">
          Loading…
        </p>
      )}
    </section>
  );
}
