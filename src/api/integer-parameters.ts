// Integer parameters are judged by their text, before Ajv coerces them: Ajv turns any string that
// Number() reads into a number, so `page=1e3` was page 1000, `1.0` was 1 and `1e309` was
// Infinity (a 200 whose `page` broke its own schema). The decimal digits of an integer, with an
// optional leading minus (so `-5` meets the minimum's ordinary 422), are an integer; anything
// else (exponent, fraction, sign `+`, hex, spaces, empty) is a 422 `int_parsing` at the parameter.
// A leading `+` is refused rather than read: in a query string an unescaped `+` means a space.
import type { ErrorObject } from 'ajv';
import type { Operation, ParsedRequest } from 'openapi-backend';

const INTEGER_TEXT = /^-?[0-9]+$/;

/** The keyword src/api/validation-issues.ts turns into `int_parsing`. */
const INTEGER_TEXT_KEYWORD = 'integerText';

interface Parameter {
  name: string;
  in: string;
  schema?: { type?: unknown };
}

function isIntegerSchema(schema: Parameter['schema']): boolean {
  const type = schema?.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('number') && !type.includes('string'));
}

/** Where openapi-backend's parsed request keeps the raw text of a parameter, and its name there. */
function rawValues(parameter: Parameter, request: ParsedRequest): { source: string; name: string; values: unknown[] } | undefined {
  const lookup: Record<string, [string, Record<string, unknown>, string]> = {
    query: ['query', request.query as Record<string, unknown>, parameter.name],
    path: ['path', request.params as Record<string, unknown>, parameter.name],
    header: ['header', request.headers as Record<string, unknown>, parameter.name.toLowerCase()],
  };
  const found = lookup[parameter.in];
  if (!found) return undefined;
  const [source, values, name] = found;
  const value = values?.[name];
  if (value === undefined) return undefined;
  return { source, name, values: Array.isArray(value) ? value : [value] };
}

/** One Ajv-shaped error per integer parameter whose text is not an integer's digits. */
export function integerTextErrors(operation: Operation, request: ParsedRequest): ErrorObject[] {
  const errors: ErrorObject[] = [];
  for (const parameter of (operation.parameters ?? []) as Parameter[]) {
    if (!isIntegerSchema(parameter.schema)) continue;
    const raw = rawValues(parameter, request);
    if (!raw || raw.values.every((value) => typeof value === 'string' && INTEGER_TEXT.test(value))) continue;
    errors.push({
      instancePath: `/${raw.source}/${raw.name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      schemaPath: `#/${raw.source}/${raw.name}`,
      keyword: INTEGER_TEXT_KEYWORD,
      params: {},
      message: 'Input should be a valid integer, unable to parse string as an integer',
    });
  }
  return errors;
}
