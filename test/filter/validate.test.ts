// Step 1 of the filter compiler, table-driven from the corpus beside this file.
import fs from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES, MAX_LIST_VALUES } from '../../src/filter/ast.js';
import { validateFilter } from '../../src/filter/validate.js';

/** `reads: traces`: the filter of POST /traces or POST /engine/metrics (trace-level fields allowed). */
interface Corpus {
  valid: Array<{ name: string; filter: unknown; reads?: 'traces' }>;
  /** `msg_includes`: a part of the message that says why (regex refusals). */
  invalid: Array<{ name: string; filter: unknown; loc: Array<string | number>; type: string; reads?: 'traces'; msg_includes?: string }>;
}

const corpus = parse(fs.readFileSync(new URL('./corpus.yaml', import.meta.url), 'utf8')) as Corpus;

function nested(depth: number): unknown {
  let node: unknown = { field: 'span_name', op: 'eq', value: 'x' };
  for (let level = 1; level < depth; level += 1) node = { and: [node] };
  return node;
}

describe('filter validation', () => {
  for (const { name, filter, reads } of corpus.valid) {
    it(`accepts: ${name}`, () => {
      const result = validateFilter(filter, { traceFields: reads === 'traces' });
      expect(result.ok, JSON.stringify(result)).to.equal(true);
    });
  }

  for (const { name, filter, loc, type, reads, msg_includes: msgIncludes } of corpus.invalid) {
    it(`rejects once, at its place: ${name}`, () => {
      const result = validateFilter(filter, { traceFields: reads === 'traces' });
      if (result.ok) throw new Error('accepted an invalid filter');
      expect(result.issues).to.have.length(1);
      expect(result.issues[0]).to.include({ type });
      expect(result.issues[0]?.loc).to.deep.equal(loc);
      if (msgIncludes) expect(result.issues[0]?.msg).to.include(msgIncludes);
    });
  }

  it('turns a valid tree into the AST', () => {
    const result = validateFilter({ or: [{ field: 'cost', op: 'gte', value: '1' }, { and: [] }] });
    expect(result).to.deep.equal({
      ok: true,
      filter: {
        kind: 'or',
        children: [
          { kind: 'condition', field: 'cost', op: 'gte', value: '1', resolved: { kind: 'number', name: 'cost' }, number: 1 },
          { kind: 'and', children: [] },
        ],
      },
    });
  });

  it(`accepts nesting down to ${MAX_FILTER_DEPTH} levels and refuses one more`, () => {
    expect(validateFilter(nested(64)).ok).to.equal(true);
    expect(validateFilter(nested(MAX_FILTER_DEPTH)).ok).to.equal(true);
    const tooDeep = validateFilter(nested(MAX_FILTER_DEPTH + 1));
    if (tooDeep.ok) throw new Error('accepted a filter past the depth limit');
    expect(tooDeep.issues).to.have.length(1);
    expect(tooDeep.issues[0]?.type).to.equal('too_deep');
  });

  it('counts a not node as a level, like a group', () => {
    let node: unknown = { field: 'span_name', op: 'eq', value: 'x' };
    for (let level = 1; level < MAX_FILTER_DEPTH; level += 1) node = level % 2 ? { not: node } : { and: [node] };
    expect(validateFilter(node).ok).to.equal(true);
    const tooDeep = validateFilter({ not: node });
    if (tooDeep.ok) throw new Error('accepted a filter past the depth limit');
    expect(tooDeep.issues.map((issue) => issue.type)).to.deep.equal(['too_deep']);
  });

  it(`takes up to ${MAX_LIST_VALUES} values for in, refuses one more, and parses numbers on number fields`, () => {
    const values = Array.from({ length: MAX_LIST_VALUES }, (_, index) => String(index));
    expect(validateFilter({ field: 'span_name', op: 'in', value: values }).ok).to.equal(true);
    const tooLong = validateFilter({ field: 'span_name', op: 'in', value: [...values, 'x'] });
    if (tooLong.ok) throw new Error('accepted a list past the limit');
    expect(tooLong.issues).to.deep.equal([
      { loc: ['body', 'filter', 'value'], msg: `operator "in" takes at most ${MAX_LIST_VALUES} values`, type: 'too_long' },
    ]);
    const numeric = validateFilter({ field: 'cost', op: 'not_in', value: ['1', '2e1'] });
    expect(numeric).to.deep.equal({
      ok: true,
      filter: { kind: 'condition', field: 'cost', op: 'not_in', values: [], numbers: [1, 20], resolved: { kind: 'number', name: 'cost' } },
    });
  });

  it(`refuses more than ${MAX_FILTER_NODES} nodes with one issue`, () => {
    const wide = { or: Array.from({ length: MAX_FILTER_NODES }, () => ({ field: 'span_id', op: 'eq', value: 'x' })) };
    const result = validateFilter(wide);
    if (result.ok) throw new Error('accepted a filter past the size limit');
    expect(result.issues).to.deep.equal([
      { loc: ['body', 'filter'], msg: `filter holds more than ${MAX_FILTER_NODES} nodes`, type: 'too_long' },
    ]);
  });

  it('reports every bad condition of a group, each at its own index', () => {
    const result = validateFilter({
      and: [
        { field: 'nope', op: 'eq', value: 'a' },
        { field: 'cost', op: 'eq', value: 'b' },
      ],
    });
    if (result.ok) throw new Error('accepted an invalid filter');
    expect(result.issues.map((issue) => issue.loc)).to.deep.equal([
      ['body', 'filter', 'and', 0, 'field'],
      ['body', 'filter', 'and', 1, 'value'],
    ]);
  });
});
