// Builds the dashboard (ui/) into dist/ui with esbuild: one hashed script and style sheet for the
// first view, later chunks loaded when a view needs them, a .gz beside each file for browsers that
// take gzip, the page that loads them, and build.json with the sizes (README, "Dashboard").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import { FAVICON_SVG } from '../../src/dashboard/favicon.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const UI_SOURCE = path.join(ROOT, 'ui/src');
export const UI_OUT = path.join(ROOT, 'dist/ui');

export interface BuiltFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface UiBuild {
  files: BuiltFile[];
  /** What opening the dashboard downloads before any view loads a chunk of its own, gzipped. */
  firstViewGzipBytes: number;
}

function page(script: string, styles: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>spanledger</title>
  <link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">
${styles.map((href) => `  <link rel="stylesheet" href="/ui/assets/${href}">`).join('\n')}
  <script type="module" src="/ui/assets/${script}"></script>
</head>
<body>
  <div id="app"></div>
  <noscript>The spanledger dashboard needs JavaScript. The APIs are described at <a href="/docs">/docs</a>.</noscript>
</body>
</html>
`;
}

export async function buildUi(outDir = UI_OUT): Promise<UiBuild> {
  const assets = path.join(outDir, 'assets');
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [path.join(UI_SOURCE, 'main.tsx')],
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, output]) => output.entryPoint !== undefined && output.entryPoint.endsWith('main.tsx'));
  if (!entry) throw new Error('esbuild produced no entry script');
  const [entryFile, entryOutput] = entry;
  const styles = outputs.filter(([file]) => file.endsWith('.css') && entryOutput.cssBundle === file).map(([file]) => path.basename(file));
  fs.writeFileSync(path.join(outDir, 'index.html'), page(path.basename(entryFile), styles));

  const files: BuiltFile[] = [];
  for (const file of [path.join(outDir, 'index.html'), ...outputs.map(([name]) => path.resolve(ROOT, name))]) {
    if (file.endsWith('.map')) continue;
    const content = fs.readFileSync(file);
    const gzipped = zlib.gzipSync(content, { level: 9 });
    if (file.startsWith(assets)) fs.writeFileSync(`${file}.gz`, gzipped);
    files.push({ file: path.relative(outDir, file), bytes: content.length, gzipBytes: gzipped.length });
  }
  // The first view: the page, its style sheet, its script and the chunks that script imports statically.
  const firstView = new Set(['index.html', ...styles.map((name) => `assets/${name}`), `assets/${path.basename(entryFile)}`]);
  for (const imported of entryOutput.imports)
    if (imported.kind === 'import-statement') firstView.add(`assets/${path.basename(imported.path)}`);
  const firstViewGzipBytes = files.filter((item) => firstView.has(item.file)).reduce((sum, item) => sum + item.gzipBytes, 0);
  const build = { files, firstViewGzipBytes };
  fs.writeFileSync(path.join(outDir, 'build.json'), `${JSON.stringify(build, null, 2)}\n`);
  return build;
}
