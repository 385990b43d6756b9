// `Authorization: Basic base64(api_key:api_secret)` (RFC 7617), the credentials OTLP exporters
// and Collectors hold in their configuration. Only the parsing lives here; the check is the
// key's row, read once per request like a key's token (authenticate.ts).

export interface BasicCredentials {
  apiKey: string;
  secret: string;
}

const BASIC = /^Basic(?: +(.*))?$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether the header uses the Basic scheme at all (well-formed or not). */
export function isBasic(authorization: string): boolean {
  return BASIC.test(authorization);
}

/** The key and secret of a Basic header value, or undefined when the value is not valid Basic. */
export function parseBasic(authorization: string): BasicCredentials | undefined {
  const encoded = BASIC.exec(authorization)?.[1]?.trim();
  // Node's base64 decoder skips characters it does not know; strictness is checked first.
  if (!encoded || !BASE64.test(encoded) || encoded.length % 4 === 1) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { apiKey: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}
