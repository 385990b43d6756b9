// The `regex` operator's SQL answers exactly as RE2 (re2js) does, on every database: each
// accepted pattern below is run by the dialect's regexMatches (SQLite: the registered RE2
// function; MariaDB: the PCRE2 translation) against texts chosen to tell the dialects apart
// (newlines before the end, non-ASCII letters and digits, `%`, `_`, `\`, case, and under (?i)
// the letters outside ASCII that RE2 folds with ASCII ones).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { RE2JS } from 're2js';
import { checkRegex } from '../../../src/filter/regex.js';
import { openDatabase } from '../../../src/storage/database.js';
import { fragment } from '../../../src/storage/sql/dialect.js';
import { dialectFor } from '../../../src/storage/sql/index.js';
import { testDatabases } from '../../support/databases.js';

const PATTERNS = [
  'abc',
  '',
  '^abc$',
  'c$',
  '^$',
  '\\Aab',
  'b\\z',
  '(?m)^b',
  '(?m)a$',
  '(?m)^$',
  'a.c',
  '(?s)a.c',
  '(?s:a.)c',
  '.',
  '^.$',
  '^..$',
  '[abc]+',
  '[^abc]',
  '^[^a]*$',
  '[a-c]{2}',
  '[]a]',
  '[a-]x',
  '[\\d-z]',
  '\\d+',
  '\\D',
  '\\w+$',
  '\\W',
  '\\s',
  '\\S+',
  '[[:alpha:]]+',
  '[[:^digit:]]',
  '[[:punct:]]',
  '\\bcat\\b',
  '\\Bat',
  '100%',
  'a_c',
  '\\\\',
  '\\%\\_',
  '\\.',
  '\\x41',
  '\\x{e9}',
  '\\x{1F600}',
  'é',
  '😀+',
  '\\Q.*\\E',
  '\\Qab\\E+c',
  'a{2}',
  'a{2,}',
  'a{1,2}b',
  'a{',
  'a{,2}',
  'x{2}y?',
  'ab|cd',
  '^(ab|cd)$',
  '(?:ab)+c',
  '(?P<word>ca)t',
  '(?<word>ca)t',
  'a*?b',
  '(?U)a+b',
  'ERROR',
  'Error',
  '\\t|\\n',
  '[\\n]',
  '\\v',
  'a|',
  '}',
  ']',
  '(?i)error',
  '(?i)k',
  '(?i)^s$',
  '(?i)\\x{212a}',
  '(?i)[a-z]+$',
  '(?i)[^k]',
  '(?i)\\W',
  '(?i)[[:upper:]]',
  '(?i:ab)c',
  '(?i)abc(?-i)d',
  '(?i)\\bcat\\b',
  '(?i)\\Qa.B\\E',
];

const TEXTS = [
  'abc',
  'ABC',
  'xabcx',
  'ab\nc',
  'abc\n',
  'a\nb\n',
  '\n',
  '',
  'a\nc',
  'aac',
  'cat',
  'concat',
  'the cat sat',
  'café',
  'été',
  'É',
  '٣',
  '😀',
  '😀😀',
  '100%',
  '100',
  'a_c',
  'abc_',
  'a\\b',
  '%_',
  '.*',
  'x.*y',
  'aa',
  'aab',
  'a{',
  'a{,2}',
  'xxy',
  'cd',
  'abcd',
  'ERROR: x',
  'Error',
  'a\tb',
  '\u000b',
  'A',
  'z',
  '-x',
  ']',
  '}',
  '\u00a0',
  'a b',
  // Case partners of ASCII letters outside ASCII: ſ (s) and the Kelvin sign (k).
  '\u212a',
  '\u017f',
  'k',
  'S',
  'abcD',
  'ABCd',
  'A.b',
  'The CAT',
];

function inputExpression(dialect: ReturnType<typeof dialectFor>): string {
  // As a utf8mb4_bin column reads it on MariaDB; SQLite's text is binary already.
  return dialect.name === 'mysql' ? 'CONVERT(? USING utf8mb4) COLLATE utf8mb4_bin' : '?';
}

async function databaseAnswers(knex: Knex, pattern: string): Promise<boolean[]> {
  const dialect = dialectFor(knex);
  const check = checkRegex(pattern);
  if (!check.ok) throw new Error(`${pattern}: ${check.msg}`);
  const answers: boolean[] = [];
  for (const text of TEXTS) {
    const test = dialect.regexMatches(fragment(inputExpression(dialect), text), { source: pattern, tree: check.tree });
    const result = (await knex.raw(`SELECT ${test.sql} AS matched`, test.bindings)) as unknown;
    const rows = (
      dialect.name === 'mysql' ? (result as [Array<{ matched: unknown }>])[0] : (result as Array<{ matched: unknown }>)
    ) as Array<{ matched: unknown }>;
    answers.push(Number(rows[0]?.matched) === 1);
  }
  return answers;
}

for (const database of testDatabases()) {
  describe(`regex patterns answer as RE2 does [${database.name}]`, function () {
    this.timeout(120_000);
    let knex: Knex;
    let drop: () => Promise<void>;
    let dataDir: string;

    before(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-regex-'));
      const created = await database.create(dataDir);
      drop = created.drop;
      knex = openDatabase(created.url, dataDir);
    });

    after(async () => {
      await knex.destroy();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('every accepted pattern, on every text', async () => {
      const differences: string[] = [];
      for (const pattern of PATTERNS) {
        const compiled = RE2JS.compile(pattern);
        const answers = await databaseAnswers(knex, pattern);
        TEXTS.forEach((text, index) => {
          const expected = compiled.test(text);
          if (answers[index] !== expected)
            differences.push(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}: RE2 ${expected}, database ${answers[index]}`);
        });
      }
      expect(differences).to.deep.equal([]);
    });

    it('NULL text: NULL, so no match', async () => {
      const dialect = dialectFor(knex);
      const check = checkRegex('a');
      if (!check.ok) throw new Error(check.msg);
      const test = dialect.regexMatches(fragment('NULL'), { source: 'a', tree: check.tree });
      const result = (await knex.raw(`SELECT (${test.sql}) IS NULL AS absent`, test.bindings)) as unknown;
      const rows = (
        dialect.name === 'mysql' ? (result as [Array<{ absent: unknown }>])[0] : (result as Array<{ absent: unknown }>)
      ) as Array<{ absent: unknown }>;
      expect(Number(rows[0]?.absent)).to.equal(1);
    });
  });
}
