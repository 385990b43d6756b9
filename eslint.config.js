// ESLint: the recommended TypeScript rules over src/, test/ and scripts/, and the one-way layering
// of src/ (README, "Layout"): each folder imports only the folders below it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * What each top-level entry of src/ may import from src/, lowest first. A folder not listed may
 * import nothing of src/; server.ts and main.ts compose everything and are not restricted.
 */
const LAYERS = {
  errors: [],
  permissions: [],
  json: [],
  generated: [],
  'span-enums': ['generated'],
  config: [],
  logger: ['config'],
  // The default price book and organizations' price entries: a leaf over its package.
  pricing: [],
  // Webhook signatures, destination checks, retry schedule and the POST itself: a leaf over node:.
  webhooks: [],
  filter: ['errors', 'generated'],
  storage: ['filter', 'span-enums', 'errors', 'permissions', 'json', 'config', 'webhooks'],
  accounts: ['storage', 'pricing', 'webhooks', 'errors', 'permissions'],
  auth: ['accounts', 'storage', 'errors', 'permissions', 'config'],
  ingest: ['storage', 'pricing', 'span-enums', 'errors', 'json', 'config'],
  traces: ['storage', 'filter', 'errors', 'generated'],
  request: ['storage', 'errors'],
  // Bulk exports: their rules, file formats and reads. The record columns are read from the engine
  // document (src/api/documents.ts); the record shapes come from the engine through the worker's deps.
  exports: ['api', 'storage', 'filter', 'errors', 'json', 'generated', 'config'],
  // The re-pricing job prices spans as ingestion does (src/ingest/computed-cost.ts).
  jobs: ['storage', 'ingest', 'pricing', 'webhooks', 'exports', 'errors', 'config'],
  operations: ['auth', 'storage', 'pricing', 'errors', 'config'],
  engine: ['operations', 'request', 'traces', 'ingest', 'exports', 'auth', 'filter', 'storage', 'errors', 'json', 'generated', 'config'],
  management: [
    'operations',
    'request',
    'accounts',
    'auth',
    'storage',
    'pricing',
    'webhooks',
    'errors',
    'permissions',
    'generated',
    'config',
  ],
  api: ['operations', 'errors', 'generated', 'config'],
  ops: ['api', 'storage', 'errors', 'json', 'config'],
  dashboard: ['auth', 'storage', 'errors', 'permissions', 'config'],
  // The MCP server: tools from the engine document, each answered by the engine API itself over HTTP.
  mcp: ['auth'],
  grpc: ['ops', 'api', 'operations', 'ingest', 'auth', 'storage', 'errors', 'config'],
  http: [
    'dashboard',
    'mcp',
    'ops',
    'api',
    'engine',
    'management',
    'operations',
    'traces',
    'ingest',
    'pricing',
    'auth',
    'accounts',
    'storage',
    'errors',
    'json',
    'generated',
    'config',
    'logger',
  ],
};

const ENTRIES = [...Object.keys(LAYERS), 'server', 'main'];

const SINGLE_FILES = new Set(['errors', 'permissions', 'config', 'logger', 'span-enums']);

/** The pattern that keeps an import climbing back to src/ (`climb`) to what `entry` allows. */
function layerPattern(entry, climb) {
  const allowed = LAYERS[entry];
  const forbidden = ENTRIES.filter((other) => other !== entry && !allowed.includes(other));
  const message = `src/${entry} may import only ${allowed.length > 0 ? allowed.join(', ') : 'nothing'} of src/ (eslint.config.js, LAYERS)`;
  return { regex: `^${climb}(${forbidden.join('|')})(/|\\.js$)`, message };
}

/**
 * Storage receives requests already parsed (src/request/: a decoded cursor, nanosecond bounds):
 * of the error vocabulary it may not use the request's own failures.
 */
const STORAGE_PARSES_NO_REQUESTS = {
  regex: '^(\\.\\./)+errors\\.js$',
  importNames: ['RequestValidationError', 'MalformedRequestError', 'ValidationIssue'],
  message: 'storage receives parsed, typed values and answers no request error: parse the request in src/request/ (eslint.config.js)',
};

/**
 * Above storage, spans are reached through the span store's interface only
 * (src/storage/spans/span-store.ts): the SQL engine behind it could be replaced by another.
 */
const SPANS_THROUGH_THE_STORE = {
  regex: '^(\\.\\./)+storage/spans/(?!span-store\\.js$)',
  message: 'read and write spans through src/storage/spans/span-store.ts (the SpanStore interface), not its SQL modules (eslint.config.js)',
};
const STORE_USERS = new Set(['engine', 'ingest', 'traces', 'exports', 'operations', 'grpc', 'http', 'api', 'management', 'request']);

const restrict = (files, patterns) => ({ files: [files], rules: { 'no-restricted-imports': ['error', { patterns }] } });

/**
 * One block per entry and file depth: an import that climbs back to src/ (`./x` from a file of
 * src/, `../x` from a file one folder down, ...) may name only what the entry allows.
 */
function layeringRules() {
  const blocks = Object.keys(LAYERS).flatMap((entry) => {
    if (SINGLE_FILES.has(entry)) return [restrict(`src/${entry}.ts`, [layerPattern(entry, '\\./')])];
    const extra = entry === 'storage' ? [STORAGE_PARSES_NO_REQUESTS] : STORE_USERS.has(entry) ? [SPANS_THROUGH_THE_STORE] : [];
    return [1, 2, 3, 4].map((depth) =>
      restrict(`src/${entry}/${'*/'.repeat(depth - 1)}*.ts`, [layerPattern(entry, '(\\.\\./)'.repeat(depth)), ...extra]),
    );
  });
  // The span writer and the purge call the derived structures through the seam
  // (src/storage/spans/derived/): no structure, and nothing else of the span tables, calls back.
  const writesOnTop = {
    regex: '^\\.\\./writes/',
    message: 'only the span writer and the purge live in src/storage/spans/writes: nothing below them imports it (eslint.config.js)',
  };
  blocks.push(
    restrict('src/storage/spans/!(writes)/*.ts', [layerPattern('storage', '(\\.\\./){3}'), STORAGE_PARSES_NO_REQUESTS, writesOnTop]),
  );
  // Inside storage, the dialects are the bottom: they know nothing of the tables they serve.
  const siblings = { regex: '^\\.\\./(?!\\.\\./)', message: 'src/storage/sql imports only its own modules (eslint.config.js)' };
  blocks.push(restrict('src/storage/sql/*.ts', [layerPattern('storage', '(\\.\\./){2}'), siblings, STORAGE_PARSES_NO_REQUESTS]));
  // The Parquet encoder is a leaf over its library: of src/ it knows only the format interface it
  // implements (this block comes after the layers, so it holds whatever src/exports may import).
  const parquetLeaf = 'src/exports/parquet imports nothing of src/ but src/exports/formats/format.ts (eslint.config.js)';
  blocks.push(
    restrict('src/exports/parquet/*.ts', [
      { regex: '^\\.\\./\\.\\./', message: parquetLeaf },
      { regex: '^\\.\\./(?!\\.\\./|formats/format\\.js$)', message: parquetLeaf },
    ]),
  );
  return blocks;
}

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'test-artifacts/', 'src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Headers: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layeringRules(),
  // The dashboard runs in the browser and reaches the service only through its HTTP APIs: of
  // src/ it may import only the generated types of the documents.
  {
    files: ['ui/**/*.ts', 'ui/**/*.tsx'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!generated/)',
              message: 'the dashboard uses the APIs, not the server code: only src/generated types (eslint.config.js)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
