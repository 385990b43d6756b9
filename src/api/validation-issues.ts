// Translates the errors of openapi-backend's Ajv validation into FastAPI-style 422 entries:
// `loc` starts at query, path, header or body and follows the JSON down to the bad value.
import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../errors.js';

type Loc = Array<string | number>;

// openapi-backend validates {path, query, header, cookie} and {requestBody}; the API says "body".
const ROOT_NAMES: Record<string, string> = { requestBody: 'body', path: 'path', query: 'query', header: 'header', cookie: 'cookie' };

function pointerToLoc(pointer: string): Loc {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment, index) => (index === 0 ? (ROOT_NAMES[segment] ?? segment) : /^\d+$/.test(segment) ? Number(segment) : segment));
}

const FORMAT_TYPES: Record<string, string> = { 'date-time': 'datetime_parsing', email: 'value_error', uri: 'url_parsing' };

function describe(error: ErrorObject): { extra?: string; msg: string; type: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { extra: String(params.missingProperty), msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return { extra: String(params.additionalProperty), msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'type': {
      const expected = String(params.type);
      const type = expected === 'integer' ? 'int_parsing' : expected === 'number' ? 'float_parsing' : `${expected}_type`;
      return { msg: `Input should be of type ${expected}`, type };
    }
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${params.limit}`, type: 'greater_than_equal' };
    case 'maximum':
      return { msg: `Input should be less than or equal to ${params.limit}`, type: 'less_than_equal' };
    case 'exclusiveMinimum':
      return { msg: `Input should be greater than ${params.limit}`, type: 'greater_than' };
    case 'exclusiveMaximum':
      return { msg: `Input should be less than ${params.limit}`, type: 'less_than' };
    case 'minLength':
      return { msg: `String should have at least ${params.limit} characters`, type: 'string_too_short' };
    case 'maxLength':
      return { msg: `String should have at most ${params.limit} characters`, type: 'string_too_long' };
    case 'pattern':
      return { msg: `String should match pattern '${params.pattern}'`, type: 'string_pattern_mismatch' };
    case 'format':
      return { msg: `Input should be a valid ${params.format}`, type: FORMAT_TYPES[String(params.format)] ?? 'value_error' };
    case 'enum':
      return {
        msg: `Input should be one of ${((params.allowedValues as unknown[]) ?? []).map((value) => JSON.stringify(value)).join(', ')}`,
        type: 'enum',
      };
    case 'const':
      return { msg: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'literal_error' };
    case 'minItems':
      return { msg: `List should have at least ${params.limit} items`, type: 'too_short' };
    case 'maxItems':
      return { msg: `List should have at most ${params.limit} items`, type: 'too_long' };
    case 'minProperties':
      return { msg: `Object should have at least ${params.limit} properties`, type: 'too_short' };
    case 'uniqueItems':
      return { msg: 'List items should be unique', type: 'value_error' };
    case 'integerText': // src/api/integer-parameters.ts
      return { msg: error.message ?? 'Input should be a valid integer', type: 'int_parsing' };
    case 'parse':
      return { msg: `Invalid JSON: ${error.message ?? 'cannot parse body'}`, type: 'json_invalid' };
    default:
      return { msg: error.message ?? 'Invalid input', type: 'value_error' };
  }
}

// Branch-choice keywords only restate what their sub-errors say.
const SUMMARY_KEYWORDS = new Set(['oneOf', 'anyOf', 'if', 'not']);

export function toValidationIssues(errors: readonly ErrorObject[]): ValidationIssue[] {
  const specific = errors.filter((error) => !SUMMARY_KEYWORDS.has(error.keyword));
  const chosen = specific.length > 0 ? specific : errors;
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of chosen) {
    const { extra, msg, type } = describe(error);
    let loc = pointerToLoc(error.instancePath);
    if (extra !== undefined) loc = [...loc, extra];
    // A missing body is reported by openapi-backend as a missing "requestBody" property at the root.
    if (loc.length === 1 && loc[0] === 'requestBody') loc = ['body'];
    if (loc.length === 0) loc = ['body'];
    const key = JSON.stringify([loc, type]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ loc, msg, type });
  }
  return issues;
}
