// JSON.parse that keeps big integers exact. OTLP JSON writes 64-bit integers as decimal strings,
// but senders may write bare numbers too (we accept them), and JSON.parse would round a
// 19-digit nanosecond timestamp to the nearest double. Bare integer literals of 16 or more
// digits are therefore read as strings, which every int64 field accepts anyway.

const BIG_INTEGER_HINT = /\d{16}/;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Wraps every bare integer literal of 16+ digits (outside strings) in quotes. */
function quoteBigIntegers(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92)
        index += 1; // backslash: skip the escaped character
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 34) {
      inString = true;
      continue;
    }
    if (code !== 45 && !isDigit(code)) continue;
    // A number token starts here ("-" or a digit): find its end, noting whether it is an integer.
    let end = index + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    const digits = end - index - (code === 45 ? 1 : 0);
    let isInteger = true;
    if (text.charCodeAt(end) === 46) {
      isInteger = false; // a fraction
      end += 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    }
    if (text.charCodeAt(end) === 101 || text.charCodeAt(end) === 69) {
      isInteger = false; // an exponent
      end += 1;
      if (text.charCodeAt(end) === 43 || text.charCodeAt(end) === 45) end += 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    }
    if (isInteger && digits >= 16) {
      out += `${text.slice(copiedUpTo, index)}"${text.slice(index, end)}"`;
      copiedUpTo = end;
    }
    index = end - 1;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** Parses JSON like JSON.parse (and throws its SyntaxError), but big integers come back as strings. */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(BIG_INTEGER_HINT.test(text) ? quoteBigIntegers(text) : text);
}
