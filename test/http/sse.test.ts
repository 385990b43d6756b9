// The Server-Sent Events wire format (src/http/sse.ts): id, event, one data field per line.
import { expect } from 'chai';
import { formatEvent } from '../../src/http/sse.js';

describe('SSE event format', () => {
  it('writes id, event and the data, ended by a blank line', () => {
    expect(formatEvent({ id: '42', event: 'span', data: '{"a":1}' })).to.equal('id: 42\nevent: span\ndata: {"a":1}\n\n');
  });

  it('splits data on every kind of line break, so no line of data can end the event early', () => {
    expect(formatEvent({ id: '7', event: 'span', data: 'one\ntwo\r\nthree\rfour' })).to.equal(
      'id: 7\nevent: span\ndata: one\ndata: two\ndata: three\ndata: four\n\n',
    );
  });
});
