// JSON text with exact big integers. JSON.stringify can only write a 19-digit nanosecond time
// through a double, which loses digits; here such a value is carried as its decimal digits
// (JsonInteger) and written as they are. Stored attribute maps are JSON text already and are
// embedded verbatim (RawJson), so their own large integers keep every digit too.

/** An integer written as exact JSON digits, e.g. a nanosecond time read from the database as text. */
export class JsonInteger {
  readonly digits: string;
  constructor(digits: string | bigint) {
    const text = String(digits);
    if (!/^-?(0|[1-9][0-9]*)$/.test(text)) throw new Error(`not an integer: ${text}`);
    this.digits = text;
  }
}

/** JSON text that is embedded as it is (the caller vouches that it is valid JSON). */
export class RawJson {
  constructor(readonly text: string) {}
}

function write(value: unknown, out: string[]): void {
  if (value instanceof JsonInteger) {
    out.push(value.digits);
  } else if (value instanceof RawJson) {
    out.push(value.text);
  } else if (typeof value === 'bigint') {
    out.push(value.toString());
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, index) => {
      if (index > 0) out.push(',');
      write(item === undefined ? null : item, out);
    });
    out.push(']');
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    out.push('{');
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(item, out);
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value) ?? 'null');
  }
}

/** Serialises like JSON.stringify, but writes JsonInteger, bigint and RawJson values exactly. */
export function exactJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
