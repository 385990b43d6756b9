// The documents as the docs page's "Try it out" needs them. Swagger UI sends requests to the
// document's server and pre-fills parameters and bodies from its examples, so the page gets a
// copy whose server is the origin the page was loaded from (any port, host or proxy, no CORS)
// and whose examples work now: a time window ending now, no id of a resource that cannot exist
// in this service, no stale cursor and no compression the example bodies lack. The documents
// integrators generate clients from stay as written.
import type { Document } from 'openapi-backend';

const DAY_MS = 86_400_000;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Names of parameters and body fields that carry the id of a resource of this service (`org_id`,
 * `organization_id`, `app_id`, `X-Vendor-App-Id`, `user_id`, `api_key`, `trace_id`, a price
 * entry's `entry_id`, a re-pricing job's `job_id`, a webhook endpoint's `endpoint_id`, a budget's `budget_id`, an export's
 * `export_id`, OAuth's `client_id`, the audit log's `actor_id` and `resource_id`), not any
 * name ending in `_id`: the example of `tax_id` works as written.
 */
const isIdName = (name: string): boolean =>
  /^(x-vendor-)?(org|organization|app|application|user|client|trace|actor|resource|entry|job|endpoint|budget|export)[_-]id$/i.test(name) ||
  name === 'api_key';

/**
 * Parameters whose written example fails or misleads when sent as it stands: ids, a cursor (it
 * exists only as a previous page's `next_cursor`, and the page example beside it makes the pair
 * a 422), a `Last-Event-ID` (only a previous stream's id; an example one skips spans),
 * `Content-Encoding: gzip` (it would announce the examples' plain bodies as compressed: a 400),
 * the audit log's `operation_id` filter (pre-filled, it would hide every other event), and a
 * download's `Range` and `If-Range` (a range of another file: a 416, or the whole file).
 */
const UNSENDABLE = new Set(['cursor', 'last-event-id', 'content-encoding', 'operation_id', 'range', 'if-range']);
const isUnsendableExample = (name: string): boolean => isIdName(name) || UNSENDABLE.has(name.toLowerCase());

function parametersOf(document: Json): Json[] {
  const found: Json[] = [];
  const components =
    isObject(document.components) && isObject(document.components.parameters) ? Object.values(document.components.parameters) : [];
  found.push(...components.filter(isObject));
  for (const item of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue;
    const lists = [
      item.parameters,
      ...HTTP_METHODS.map((method) => (isObject(item[method]) ? (item[method] as Json).parameters : undefined)),
    ];
    for (const list of lists)
      if (Array.isArray(list)) found.push(...list.filter((entry): entry is Json => isObject(entry) && !('$ref' in entry)));
  }
  return found;
}

function requestBodyExamples(document: Json): Array<{ holder: Json; key: 'example' | 'value' }> {
  const found: Array<{ holder: Json; key: 'example' | 'value' }> = [];
  for (const item of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      const content = isObject(operation) && isObject(operation.requestBody) ? operation.requestBody.content : undefined;
      for (const media of Object.values(isObject(content) ? content : {})) {
        if (!isObject(media)) continue;
        if ('example' in media) found.push({ holder: media, key: 'example' });
        for (const example of Object.values(isObject(media.examples) ? media.examples : {})) {
          if (isObject(example) && 'value' in example) found.push({ holder: example, key: 'value' });
        }
      }
    }
  }
  return found;
}

function dropExamples(parameter: Json): void {
  delete parameter.example;
  delete parameter.examples;
  if (isObject(parameter.schema)) {
    delete parameter.schema.example;
    delete parameter.schema.examples;
  }
}

/** Every `…TimeUnixNano` string in an example, moved by the same amount so that the latest lies at `nowNs`. */
function shiftTimes(example: unknown, nowNs: bigint): void {
  const holders: Array<[Json, string]> = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      for (const [key, inner] of Object.entries(value)) {
        if (/TimeUnixNano$/.test(key) && typeof inner === 'string' && /^\d+$/.test(inner)) holders.push([value, key]);
        else walk(inner);
      }
    }
  };
  walk(example);
  if (holders.length === 0) return;
  const latest = holders.reduce((max, [holder, key]) => (BigInt(holder[key] as string) > max ? BigInt(holder[key] as string) : max), 0n);
  for (const [holder, key] of holders) holder[key] = String(BigInt(holder[key] as string) + nowNs - latest);
}

/** Shows where an id must go instead of one that cannot exist here (a 422 naming the field, not a 404). */
function placeholderIds(example: unknown): void {
  if (!isObject(example)) return;
  for (const key of Object.keys(example)) if (isIdName(key) && typeof example[key] === 'string') example[key] = `<${key}>`;
}

export function docsVariant(definition: Document, origin: string, now: Date): Document {
  const document = structuredClone(definition) as unknown as Json;
  document.servers = [{ url: origin, description: 'This service: the address the docs page was loaded from' }];
  // Whole seconds: what a person would type, and still inside the window that ends a minute from now.
  const start = new Date(Math.floor((now.getTime() - DAY_MS) / 1000) * 1000).toISOString();
  const end = new Date(Math.floor((now.getTime() + 60_000) / 1000) * 1000).toISOString();
  for (const parameter of parametersOf(document)) {
    const name = String(parameter.name ?? '');
    if (name === 'start_time') parameter.example = start;
    else if (name === 'end_time') parameter.example = end;
    else if (isUnsendableExample(name)) dropExamples(parameter);
  }
  const nowNs = BigInt(now.getTime()) * 1_000_000n;
  for (const { holder, key } of requestBodyExamples(document)) {
    shiftTimes(holder[key], nowNs);
    placeholderIds(holder[key]);
  }
  return document as unknown as Document;
}
