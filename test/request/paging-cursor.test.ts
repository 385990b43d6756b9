// The cursor of every list (src/request/paging-cursor.ts), without a database: the codec, and
// the page a request reads (a page number, or a cursor's position) with its 422s at
// ["query", "cursor"], which storage never sees.
import { expect } from 'chai';
import { RequestValidationError } from '../../src/errors.js';
import { decodeCursor, encodeCursor, listPosition, nextCursor, queryBinding } from '../../src/request/paging-cursor.js';
import { SPAN_ORDER } from '../../src/storage/spans/reads/span-pages.js';

const AT = '1763800030000000007';
const TRACE = '0000000000000000000000000000000a';
const SPAN = '000000000000000b';

describe('the cursor codec', () => {
  const binding = queryBinding(['querySpans', 'app_a', 1n, 2n, null, 20]);

  it('reads back what it wrote, for its operation and query only', () => {
    const cursor = encodeCursor('querySpans', binding, { key: [AT, TRACE, SPAN], page: 3 });
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'querySpans', binding, 3)).to.deep.equal({ ok: true, position: { key: [AT, TRACE, SPAN], page: 3 } });
    expect(decodeCursor(cursor, 'listTraces', binding, 3).ok).to.equal(false);
    expect(decodeCursor(cursor, 'querySpans', queryBinding(['querySpans', 'app_b', 1n, 2n, null, 20]), 3).ok).to.equal(false);
    expect(decodeCursor(cursor, 'querySpans', binding, 2).ok).to.equal(false);
  });

  it('refuses what it never wrote', () => {
    const body = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const good = { v: 1, o: 'querySpans', p: 2, k: [AT, TRACE, SPAN], h: binding };
    for (const bad of [
      '',
      '!!',
      'e30',
      body([]),
      body({ ...good, v: 2 }),
      body({ ...good, p: 1 }),
      body({ ...good, p: 2.5 }),
      body({ ...good, k: [1, 2, 3] }),
      body({ ...good, h: 5 }),
    ]) {
      expect(decodeCursor(bad, 'querySpans', binding, 3).ok, bad).to.equal(false);
    }
    expect(decodeCursor(body(good), 'querySpans', binding, 3).ok).to.equal(true);
  });
});

describe('the page a list request reads', () => {
  const PARTS = ['app_a', 1n, 2n, null];
  const PAGE = { page: 1, limit: 20 };
  const issuesOf = (read: () => unknown) => {
    try {
      read();
    } catch (error) {
      expect(error).to.be.instanceOf(RequestValidationError);
      return (error as RequestValidationError).issues;
    }
    throw new Error('accepted the cursor');
  };
  const cursorIssue = (msg: string) => [{ loc: ['query', 'cursor'], msg, type: 'value_error.cursor' }];
  const MALFORMED = 'Malformed cursor: send back a next_cursor exactly as a list returned it';

  it('is the page as sent without a cursor, and its next_cursor resumes after the key, one page on', () => {
    const first = listPosition({ cursor: undefined, pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, { page: 3, limit: 20 });
    expect(first.request).to.deep.equal({ page: 3, limit: 20 });
    expect(nextCursor(first, null)).to.equal(null);
    const cursor = nextCursor(first, [AT, TRACE, SPAN]) as string;
    const next = listPosition({ cursor, pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, PAGE);
    expect(next.request).to.deep.equal({ page: 4, limit: 20, after: [AT, TRACE, SPAN] });
    expect(next.binding).to.equal(first.binding);
  });

  it('is a 422 at ["query", "cursor"] for a cursor sent with page, of another query or operation, or malformed', () => {
    const cursor = nextCursor(listPosition({ cursor: undefined, pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, PAGE), [
      AT,
      TRACE,
      SPAN,
    ]) as string;
    expect(issuesOf(() => listPosition({ cursor, pageSent: true }, 'querySpans', PARTS, SPAN_ORDER, PAGE))).to.deep.equal(
      cursorIssue('Send either cursor or page, not both: a cursor names its own page'),
    );
    expect(
      issuesOf(() => listPosition({ cursor, pageSent: false }, 'querySpans', ['app_b', 1n, 2n, null], SPAN_ORDER, PAGE)),
    ).to.deep.equal(
      cursorIssue(
        'This cursor belongs to another query: send it with the same application, filter, window, sort and limit as the request that returned it',
      ),
    );
    expect(
      issuesOf(() => listPosition({ cursor, pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, { page: 1, limit: 21 })),
    ).to.have.nested.property('[0].loc[1]', 'cursor');
    expect(issuesOf(() => listPosition({ cursor, pageSent: false }, 'listTraces', PARTS, SPAN_ORDER, PAGE))).to.deep.equal(
      cursorIssue('This cursor belongs to another operation (querySpans), not listTraces'),
    );
    expect(issuesOf(() => listPosition({ cursor: '!!', pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, PAGE))).to.deep.equal(
      cursorIssue(MALFORMED),
    );
  });

  it('is a 422 for a key part its column cannot hold, so that storage reads only checked keys', () => {
    const binding = queryBinding(['querySpans', ...PARTS, 20]);
    for (const start of ['9223372036854775808', '1e3', '']) {
      const cursor = encodeCursor('querySpans', binding, { key: [start, TRACE, SPAN], page: 2 });
      expect(
        issuesOf(() => listPosition({ cursor, pageSent: false }, 'querySpans', PARTS, SPAN_ORDER, PAGE)),
        start,
      ).to.deep.equal(cursorIssue(MALFORMED));
    }
  });
});
