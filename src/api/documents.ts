// Loads the hand-written OpenAPI documents (the source of truth) once, from openapi/, and names
// the generated operations (src/generated/*.ts) of each, which type its handler map.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Document } from 'openapi-backend';
import type { ApiName } from '../config.js';
import type { operations as EngineOperations } from '../generated/engine.js';
import type { operations as ManagementOperations } from '../generated/management.js';

export const OPENAPI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi');

/** The generated `operations` of each document. */
export interface DocumentOperations {
  engine: EngineOperations;
  management: ManagementOperations;
}

export interface ApiDocument<Name extends ApiName = ApiName> {
  name: Name;
  yaml: string;
  definition: Document;
}

const cache = new Map<ApiName, ApiDocument>();

export function loadDocument<Name extends ApiName>(name: Name): ApiDocument<Name> {
  let document = cache.get(name);
  if (!document) {
    const yaml = fs.readFileSync(path.join(OPENAPI_DIR, `${name}.yaml`), 'utf8');
    document = { name, yaml, definition: parse(yaml) as Document };
    cache.set(name, document);
  }
  return { ...document, name };
}

/** A deep copy, because openapi-backend dereferences the definition it is given in place. */
export function cloneDefinition(document: ApiDocument): Document {
  return structuredClone(document.definition);
}
