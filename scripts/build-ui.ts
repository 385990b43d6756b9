// `npm run build:ui` (and first thing in `npm start`): builds the dashboard into dist/ui.
import { buildUi } from './lib/build-ui.js';

const started = performance.now();
const build = await buildUi();
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.error(`dashboard built in ${Math.round(performance.now() - started)} ms: first view ${kb(build.firstViewGzipBytes)} gzipped`);
