// The rules of issue 16 that can be checked mechanically, so that the schema and SQL stay
// portable to Galera, TiDB and Vitess (README, "Databases"): every table of the migrated schema
// has a primary key, on both databases; and the code sends none of the statements those engines
// refuse or handle differently (table locks, named locks, stored programs, PERCENTILE_CONT).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

async function tablesWithoutPrimaryKey(app: TestServer): Promise<string[]> {
  const knex = app.server.knex;
  if (app.database === 'mysql') {
    const [rows] = (await knex.raw(
      `SELECT t.TABLE_NAME AS name FROM information_schema.TABLES t
        WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
          AND NOT EXISTS (SELECT 1 FROM information_schema.TABLE_CONSTRAINTS c
                           WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME AND c.CONSTRAINT_TYPE = 'PRIMARY KEY')`,
    )) as [Array<{ name: string }>];
    return rows.map((row) => row.name).sort();
  }
  const tables = (await knex.raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)) as Array<{
    name: string;
  }>;
  const missing: string[] = [];
  for (const { name } of tables) {
    const columns = (await knex.raw(`PRAGMA table_info(${JSON.stringify(name)})`)) as Array<{ pk: number }>;
    if (!columns.some((column) => column.pk > 0)) missing.push(name);
  }
  return missing.sort();
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Statements Galera, TiDB or Vitess refuse or do not replicate as one node would run them. */
const FORBIDDEN: Array<[string, RegExp]> = [
  ['LOCK TABLES', /\bLOCK\s+TABLES?\b/i],
  ['GET_LOCK / RELEASE_LOCK', /\b(GET_LOCK|RELEASE_LOCK|IS_FREE_LOCK)\s*\(/i],
  ['stored procedures and functions', /\bCREATE\s+(DEFINER\s*=\s*\S+\s+)?(PROCEDURE|FUNCTION)\b|\bCALL\s+\w+\s*\(/i],
  ['triggers', /\bCREATE\s+(DEFINER\s*=\s*\S+\s+)?TRIGGER\b|\.createTrigger\(/i],
  ['events', /\bCREATE\s+(DEFINER\s*=\s*\S+\s+)?EVENT\b/i],
  ['PERCENTILE_CONT', /\bPERCENTILE_(CONT|DISC)\s*\(/i],
];

describe('portable SQL: statements the distributed engines refuse', () => {
  it('appear nowhere in src/ (comments aside)', () => {
    const found: string[] = [];
    for (const file of sourceFiles('src')) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
        for (const [what, pattern] of FORBIDDEN) if (pattern.test(code)) found.push(`${file}:${index + 1} ${what}: ${line.trim()}`);
      });
    }
    expect(found).to.deep.equal([]);
  });

  it('would be caught: the patterns match what they forbid', () => {
    const samples = [
      'LOCK TABLES spans WRITE',
      "SELECT GET_LOCK('x', 1)",
      'CREATE PROCEDURE p() BEGIN END',
      'CALL purge_spans(1)',
      'CREATE TRIGGER t BEFORE INSERT',
      'CREATE EVENT e ON SCHEDULE',
      'PERCENTILE_CONT(0.5) WITHIN GROUP',
    ];
    for (const sample of samples)
      expect(
        FORBIDDEN.some(([, pattern]) => pattern.test(sample)),
        sample,
      ).to.equal(true);
  });
});

onEachDatabase('portable schema', (app) => {
  it('gives every table of the migrated schema a primary key', async () => {
    expect(await tablesWithoutPrimaryKey(app())).to.deep.equal([]);
  });
});
