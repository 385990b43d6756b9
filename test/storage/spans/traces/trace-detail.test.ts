// GET /traces/{trace_id}'s page of spans per dialect, without a database: one trace of one
// application (spans_identity's prefix), in start order then span_id, after a keyset position,
// one row more than the page to know whether another follows.
import { expect } from 'chai';
import { traceSpansQuery } from '../../../../src/storage/spans/traces/trace-detail.js';
import { forEachDialect, sqlOf } from '../../../support/sql-cases.js';

describe("a trace's spans: SQL per dialect", () => {
  forEachDialect((knex, _dialect, name) => {
    const cast = name === 'mysql' ? 'SIGNED' : 'INTEGER';
    it('reads one trace, in start order, after the cursor position, one row past the page', () => {
      const { sql, bindings } = sqlOf(traceSpansQuery(knex, { applicationId: 'app_a', traceId: 't1', limit: 2, after: ['5', 'b'] }));
      expect(sql).to.match(/^select .* from `spans` as `s` where /);
      expect(sql.slice(sql.indexOf(' where '))).to.equal(
        ' where `s`.`application_id` = ? and `s`.`trace_id` = ?' +
          ` and s.start_time_unix_nano >= CAST(? AS ${cast}) and (s.start_time_unix_nano > CAST(? AS ${cast}) or (s.start_time_unix_nano = CAST(? AS ${cast}) and (s.span_id > ?)))` +
          ' order by `s`.`start_time_unix_nano` asc, `s`.`span_id` asc limit ?',
      );
      expect(bindings).to.deep.equal(['app_a', 't1', '5', '5', '5', 'b', 3]);
    });

    it('reads from the first span without a cursor', () => {
      const { sql, bindings } = sqlOf(traceSpansQuery(knex, { applicationId: 'app_a', traceId: 't1', limit: 1000 }));
      expect(sql.slice(sql.indexOf(' where '))).to.equal(
        ' where `s`.`application_id` = ? and `s`.`trace_id` = ? order by `s`.`start_time_unix_nano` asc, `s`.`span_id` asc limit ?',
      );
      expect(bindings).to.deep.equal(['app_a', 't1', 1001]);
    });
  });
});
