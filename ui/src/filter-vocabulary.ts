// The filter language's words (fields, attribute path prefixes, operators and which of them take a
// list or no value, whether a `not` node exists), read at run time from the engine document the
// service serves (GET /openapi/engine.json, public), so the filter builder never drifts from the
// engine it talks to. Schemas read: FilterNode, FilterField, TraceFilterField, FilterOperator,
// FilterListCondition, FilterPresenceCondition (openapi/engine.yaml).

export interface FilterVocabulary {
  /** Fixed span fields (`span_name`, `duration_ms`, `billing.sku_id`...). */
  fields: string[];
  /** Trace-level fields (`trace.duration_ms`...), usable where the engine reads traces. */
  traceFields: string[];
  /** Prefixes of attribute paths, dot included (`span_attributes.`), completed by a typed key. */
  attributePrefixes: string[];
  operators: string[];
  /** Operators whose value is a list (`in`, `not_in`). */
  listOperators: string[];
  /** Operators that take no value (`exists`, `not_exists`). */
  presenceOperators: string[];
  /** Whether the document has a NOT node (`{"not": FilterNode}`). */
  hasNot: boolean;
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Reads the vocabulary from a parsed OpenAPI document; throws when the filter schemas are missing. */
export function vocabularyFromDocument(document: unknown): FilterVocabulary {
  const schemas =
    isSchema(document) && isSchema(document.components) && isSchema(document.components.schemas) ? document.components.schemas : undefined;
  if (!schemas) throw new Error('the engine document has no schemas');
  const named = (name: string): Schema => {
    const schema = schemas[name];
    if (!isSchema(schema)) throw new Error(`the engine document has no ${name} schema`);
    return schema;
  };
  /** A `$ref` to a schema of the document, followed; other schemas as they are. */
  const resolve = (schema: unknown): { schema: Schema; name: string | undefined } => {
    if (isSchema(schema) && typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return { schema: named(name), name };
    }
    return { schema: isSchema(schema) ? schema : {}, name: undefined };
  };
  const opEnum = (name: string): string[] => {
    const properties = named(name).properties;
    return isSchema(properties) ? stringList(resolve(properties.op).schema.enum) : [];
  };

  const fields: string[] = [];
  const traceFields: string[] = [];
  const attributePrefixes: string[] = [];
  const fieldForms = named('FilterField').anyOf ?? named('FilterField').oneOf;
  for (const form of Array.isArray(fieldForms) ? fieldForms : []) {
    const { schema, name } = resolve(form);
    if (name === 'TraceFilterField') traceFields.push(...stringList(schema.enum));
    else fields.push(...stringList(schema.enum));
    // `^(span_attributes|resource_attributes)\.[A-Za-z0-9_.]+$`: the alternatives are the prefixes.
    const prefixes = typeof schema.pattern === 'string' ? /^\^\(([A-Za-z0-9_|.]+)\)\\\./.exec(schema.pattern) : null;
    if (prefixes) attributePrefixes.push(...prefixes[1].split('|').map((prefix) => `${prefix}.`));
  }
  const nodeForms = named('FilterNode').oneOf;
  const hasNot = (Array.isArray(nodeForms) ? nodeForms : []).some((form) => stringList(resolve(form).schema.required).includes('not'));
  return {
    fields,
    traceFields,
    attributePrefixes,
    operators: stringList(named('FilterOperator').enum),
    listOperators: opEnum('FilterListCondition'),
    presenceOperators: opEnum('FilterPresenceCondition'),
    hasNot,
  };
}

let loading: Promise<FilterVocabulary> | undefined;

/** The vocabulary of the served engine document, fetched once per page load. */
export function loadFilterVocabulary(): Promise<FilterVocabulary> {
  loading ??= fetch('/openapi/engine.json')
    .then((response) => {
      if (!response.ok) throw new Error(`the engine document answered ${response.status}`);
      return response.json() as Promise<unknown>;
    })
    .then(vocabularyFromDocument)
    .catch((error: unknown) => {
      loading = undefined; // the next builder tries again
      throw error;
    });
  return loading;
}
