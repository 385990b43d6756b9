// The shell: signed out, the sign-in view whatever the path (the path is kept, and opened once
// signed in); signed in, the navigation and the view of the path. Every path lives under /ui and
// is a real URL, so any view can be shared, and opens signed in in any tab of the browser.
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { resumeSession, startSignedOut, useSession } from './session';
import { Header } from './components/header';
import { SignIn, signInPending } from './views/sign-in';
import { Home } from './views/home';
import { NotFound } from './views/not-found';
import { lazy } from 'preact-iso';
import { readZoneChoice, saveZoneChoice, zoneOf, type ZoneChoice } from './time-format';
import { TimeZoneContext } from './use-time-zone';

// Loaded when first opened, so that the first view stays small (their styles are in main.tsx).
const Traces = lazy(() => import('./views/traces').then((module) => module.Traces));
const TraceView = lazy(() => import('./views/trace').then((module) => module.TraceView));
const Metrics = lazy(() => import('./views/metrics').then((module) => module.Metrics));
const Live = lazy(() => import('./views/live').then((module) => module.Live));
const OrganizationView = lazy(() => import('./views/organization').then((module) => module.OrganizationView));
const ApplicationView = lazy(() => import('./views/application').then((module) => module.ApplicationView));
const PricesView = lazy(() => import('./views/prices').then((module) => module.PricesView));

function SignedIn() {
  // One zone for every time on every page, remembered across visits (a display preference, not a secret).
  const [zoneChoice, setZoneChoice] = useState<ZoneChoice>(() => readZoneChoice(globalThis.localStorage));
  const chooseZone = (choice: ZoneChoice) => {
    saveZoneChoice(globalThis.localStorage, choice);
    setZoneChoice(choice);
  };
  return (
    <TimeZoneContext.Provider value={zoneOf(zoneChoice)}>
      <Header zoneChoice={zoneChoice} onZoneChoice={chooseZone} />
      <main id="main">
        <Router>
          <Route path="/ui/" component={Home} />
          <Route path="/ui/organizations/:orgId" component={OrganizationView} />
          <Route path="/ui/organizations/:orgId/prices" component={PricesView} />
          <Route path="/ui/applications/:appId" component={ApplicationView} />
          <Route path="/ui/traces" component={Traces} />
          <Route path="/ui/traces/:traceId" component={TraceView} />
          <Route path="/ui/metrics" component={Metrics} />
          <Route path="/ui/live" component={Live} />
          <Route path="/ui/sign-in" component={SignedInAlready} />
          <Route path="/ui/sign-in/callback" component={SignedInAlready} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </TimeZoneContext.Provider>
  );
}

/** A sign-in link or provider answer opened while signed in: not used; the user goes to the dashboard. */
function SignedInAlready() {
  const { route } = useLocation();
  useEffect(() => {
    // Unless the sign-in that just ended already sent the user where they started.
    if (location.pathname.startsWith('/ui/sign-in')) route('/ui/', true);
  }, []);
  return null;
}

// Decided once as the page loads; a sign-in in progress is completed rather than skipped.
if (signInPending()) startSignedOut();
else void resumeSession();

function Loading() {
  return (
    <main id="main" aria-busy="true">
      <p class="muted">Loading…</p>
    </main>
  );
}

export function App() {
  const session = useSession();
  return <LocationProvider scope="/ui">{session === undefined ? <Loading /> : session ? <SignedIn /> : <SignIn />}</LocationProvider>;
}
