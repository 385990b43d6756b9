// The dashboard's entry: renders the application shell into the page built by scripts/build-ui.ts.
import { render } from 'preact';
import { App } from './app';
// Every view's styles, in the first view's one style sheet: styles imported by a view loaded
// later (app.tsx, lazy) would not be applied, and all of them together are a few kilobytes.
import './styles.css';
import './views/management.css';
import './views/traces.css';
import './views/metrics.css';
import 'uplot/dist/uPlot.min.css';
import './views/live.css';

render(<App />, document.getElementById('app') as HTMLElement);
