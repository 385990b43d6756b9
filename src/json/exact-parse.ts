// JSON text to values with exact big integers: the counterpart of exact-json.ts. JSON.parse reads
// every number as a double, so an integer beyond 2^53 (a nanosecond time inside a span's events,
// an attribute holding a 64-bit id) loses digits; here such an integer is read as a bigint,
// which exactJson writes back digit for digit. Text without a run of 16 digits cannot hold one
// and goes to JSON.parse as it is.

const MAY_HOLD_BIG_INTEGER = /\d{16}/;

class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  value(): unknown {
    this.space();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    throw new SyntaxError(`unexpected ${char === undefined ? 'end of JSON' : `'${char}'`} at ${this.at}`);
  }

  end(): void {
    this.space();
    if (this.at !== this.text.length) throw new SyntaxError(`unexpected '${this.text[this.at]}' at ${this.at}`);
  }

  private space(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at] as string)) this.at += 1;
  }

  private expect(char: string): void {
    this.space();
    if (this.text[this.at] !== char) throw new SyntaxError(`expected '${char}' at ${this.at}`);
    this.at += 1;
  }

  /** The members of an object or array between `open` and `close`, each read by `member`, separated by commas. */
  private members(open: string, close: string, member: () => void): void {
    this.expect(open);
    this.space();
    if (this.text[this.at] === close) {
      this.at += 1;
      return;
    }
    for (;;) {
      member();
      this.space();
      if (this.text[this.at] !== ',') break;
      this.at += 1;
    }
    this.expect(close);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.members('{', '}', () => {
      this.space();
      const key = this.string();
      this.expect(':');
      // Own, enumerable, writable: a key "__proto__" is an ordinary key, as JSON.parse makes it.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    });
    return out;
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.members('[', ']', () => out.push(this.value()));
    return out;
  }

  private string(): string {
    if (this.text[this.at] !== '"') throw new SyntaxError(`expected a string at ${this.at}`);
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    const token = this.text.slice(this.at, end + 1);
    this.at = end + 1;
    return JSON.parse(token) as string;
  }

  private number(): number | bigint {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!match) throw new SyntaxError(`bad number at ${this.at}`);
    this.at += match[0].length;
    const value = Number(match[0]);
    const integer = match[2] === undefined && match[3] === undefined;
    return integer && !Number.isSafeInteger(value) ? BigInt(match[0]) : value;
  }
}

/** JSON.parse, with every integer beyond ±(2^53 − 1) read as a bigint (exact). */
export function parseExactJson(text: string): unknown {
  if (!MAY_HOLD_BIG_INTEGER.test(text)) return JSON.parse(text);
  const reader = new Reader(text);
  const value = reader.value();
  reader.end();
  return value;
}
