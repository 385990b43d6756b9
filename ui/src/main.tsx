// The dashboard's entry: renders the application shell into the page built by scripts/build-ui.ts.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app') as HTMLElement);
