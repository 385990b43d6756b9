// Loads the hand-written OpenAPI documents (the source of truth) once, from openapi/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Document } from 'openapi-backend';
import type { ApiName } from '../config.js';

export const OPENAPI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi');

export interface ApiDocument {
  name: ApiName;
  yaml: string;
  definition: Document;
}

const cache = new Map<ApiName, ApiDocument>();

export function loadDocument(name: ApiName): ApiDocument {
  let document = cache.get(name);
  if (!document) {
    const yaml = fs.readFileSync(path.join(OPENAPI_DIR, `${name}.yaml`), 'utf8');
    document = { name, yaml, definition: parse(yaml) as Document };
    cache.set(name, document);
  }
  return document;
}

/** A deep copy, because openapi-backend dereferences the definition it is given in place. */
export function cloneDefinition(document: ApiDocument): Document {
  return structuredClone(document.definition);
}
