// Where the dashboard's built files are: `npm run build:ui` (scripts/build-ui.ts) writes them to
// dist/ui, which `npm start` does first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/ui');

/** The page every dashboard route answers, or undefined while the dashboard is not built. */
export function readIndexPage(dir = DASHBOARD_DIR): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return undefined;
  }
}
