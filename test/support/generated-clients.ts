// Clients of the two documents as integrators generate them, written into a folder of the
// caller's: openapi-typescript types (used with openapi-fetch), @hey-api/openapi-ts with its
// fetch client, and orval's fetch client, each under a folder named after the generator.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate as orval } from 'orval';

export const GENERATORS = ['openapi-fetch', 'hey-api', 'orval'] as const;
export type Generator = (typeof GENERATORS)[number];

/** The document files to generate from, by API, as absolute paths (hey-api reads `a/b` as a registry name). */
export interface DocumentFiles {
  engine: string;
  management: string;
}

/**
 * orval's fetch client calls each path as it stands in the document (no origin), so its calls go
 * through this mutator, which `<folder>/orval/` must hold as `origin-fetch.ts`.
 */
const ORVAL_MUTATOR = 'origin-fetch.ts';

/** Writes `<folder>/<generator>/<api>…` for each generator and API, all at once. */
export async function generateClients(documents: DocumentFiles, folder: string): Promise<void> {
  const jobs = Object.entries(documents).flatMap(([api, file]) => [
    (async () => {
      // The options of `npm run generate`.
      const ast = await openapiTS(pathToFileURL(file), { alphabetize: false, exportType: false, defaultNonNullable: false });
      fs.mkdirSync(path.join(folder, 'openapi-fetch'), { recursive: true });
      fs.writeFileSync(path.join(folder, 'openapi-fetch', `${api}.ts`), astToString(ast));
    })(),
    heyApi({
      input: file,
      output: { path: path.join(folder, 'hey-api', api) },
      plugins: ['@hey-api/client-fetch'],
      logs: { level: 'silent' },
    }),
    orval({
      input: { target: file },
      output: {
        target: path.join(folder, 'orval', `${api}.ts`),
        client: 'fetch',
        mode: 'single',
        override: { mutator: { path: path.join(folder, 'orval', ORVAL_MUTATOR), name: 'originFetch' } },
      },
    }),
  ]);
  await Promise.all(jobs);
}
