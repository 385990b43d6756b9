// Statements compiled once per dialect and row count: the same text again, the values laid out as
// Knex lays them out, and rows of other columns refused rather than sent under the wrong names.
import { expect } from 'chai';
import knexFactory from 'knex';
import { RowStatements } from '../../../src/storage/sql/row-statements.js';

describe('row statements compiled once per row count', () => {
  for (const client of ['mysql2', 'better-sqlite3'] as const) {
    describe(client, () => {
      const db = knexFactory({ client, useNullAsDefault: true });
      const statements = new RowStatements<Record<string, unknown>>((knex, rows) => knex('t').insert(rows).onConflict('k').merge());

      it('gives Knex’s text and values, and the very same text for the next rows of that count', () => {
        const rows = [
          { k: 'a', v: 1, w: null },
          { k: 'b', v: 2.5, w: 'x' },
        ];
        const first = statements.statement(db, rows);
        const native = db('t').insert(rows).onConflict('k').merge().toSQL().toNative();
        expect(first).to.deep.equal({ sql: native.sql, bindings: native.bindings });
        // Keys in another order are the same columns: Knex sorts them.
        const second = statements.statement(db, [
          { w: 'y', v: 3, k: 'c' },
          { k: 'd', w: null, v: -1 },
        ]);
        expect(second.sql).to.equal(first.sql);
        expect(second.bindings).to.deep.equal(['c', 3, 'y', 'd', -1, null]);
      });

      it('refuses rows of other columns than the text of their count was compiled for', () => {
        statements.statement(db, [{ k: 'a', v: 1, w: null }]);
        expect(() => statements.statement(db, [{ k: 'a', v: 1, z: null }])).to.throw(/other columns/);
      });
    });
  }
});
