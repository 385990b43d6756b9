// The columns of each grain's records, read from the engine document itself (one source of truth):
// the top-level properties of `SpanRecord` (grain spans) and `TraceSummary` (grain traces), in
// the schema's order, each typed by its schema. A field added to either schema becomes a column
// of every export that names no columns; a type the exports cannot write fails at start.
import { loadDocument } from '../api/documents.js';
import type { ValidationIssue } from '../errors.js';
import type { ExportGrain } from '../storage/exports/export-jobs.js';
import type { ExportColumn } from './formats/format.js';

type Schema = Record<string, unknown>;

const RECORD_SCHEMAS: Record<ExportGrain, string> = { spans: 'SpanRecord', traces: 'TraceSummary' };

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function resolve(document: Schema, schema: unknown): Schema {
  if (!isObject(schema)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  if (typeof schema.$ref !== 'string') return schema;
  const target = schema.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), document);
  return resolve(document, target);
}

const TYPES: Record<string, ExportColumn['type']> = {
  string: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  object: 'json',
  array: 'json',
};

/** The column type of a property's schema: its one non-null type (`oneOf` a schema and null, or `type: [x, 'null']`). */
export function columnType(document: Schema, property: unknown, where: string): ExportColumn['type'] {
  const schema = resolve(document, property);
  if (Array.isArray(schema.oneOf)) {
    const members = schema.oneOf.map((member) => resolve(document, member)).filter((member) => member.type !== 'null');
    if (members.length !== 1) throw new Error(`${where}: an export column needs one non-null type`);
    return columnType(document, members[0], where);
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== 'null');
  const type = types.length === 1 ? TYPES[String(types[0])] : undefined;
  if (!type) throw new Error(`${where}: an export column needs one non-null type, has ${JSON.stringify(schema.type)}`);
  return type;
}

/** The columns of the record schema `name` of `document`, in its properties' order. */
export function recordColumnsOf(document: Schema, name: string): ExportColumn[] {
  const schema = resolve(document, { $ref: `#/components/schemas/${name}` });
  if (!isObject(schema.properties)) throw new Error(`${name} has no properties`);
  return Object.entries(schema.properties).map(([column, property]) => ({
    name: column,
    type: columnType(document, property, `${name}.${column}`),
  }));
}

const cache = new Map<ExportGrain, readonly ExportColumn[]>();

/** Every column of a grain's record, in the engine document's order. */
export function recordColumns(grain: ExportGrain): readonly ExportColumn[] {
  let columns = cache.get(grain);
  if (!columns) {
    columns = Object.freeze(recordColumnsOf(loadDocument('engine').definition as unknown as Schema, RECORD_SCHEMAS[grain]));
    cache.set(grain, columns);
  }
  return columns;
}

/** The columns a job writes: those named, in their order, or every one. */
export function chosenColumns(grain: ExportGrain, names: readonly string[] | null): readonly ExportColumn[] {
  const all = recordColumns(grain);
  if (names === null) return all;
  return names.map((name) => {
    const column = all.find((candidate) => candidate.name === name);
    if (!column) throw new Error(`unknown ${grain} column ${name}`);
    return column;
  });
}

/** The problems of a request's `columns` for `grain`: each unknown or repeated name, at its index. */
export function columnIssues(grain: ExportGrain, names: readonly string[] | undefined): ValidationIssue[] {
  if (names === undefined) return [];
  const known = new Set(recordColumns(grain).map((column) => column.name));
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  names.forEach((name, index) => {
    const loc = ['body', 'columns', index];
    if (!known.has(name))
      issues.push({ loc, msg: `unknown column ${name}: ${grain} records have ${[...known].join(', ')}`, type: 'value_error' });
    else if (seen.has(name)) issues.push({ loc, msg: `column ${name} is named more than once`, type: 'value_error' });
    seen.add(name);
  });
  return issues;
}
