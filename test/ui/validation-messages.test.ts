// A 422 in words for the dashboard's forms, table-driven and without a browser: the validator's
// phrasing rewritten as what to do, the service's own sentences kept; places in a filter with rows
// counted from 1; the draft row a filter `loc` names (as the builder sends the draft); and issues
// split between a form's fields and the rest.
import { expect } from 'chai';
import { draftNodeAt, filterLocText, toDraft } from '../../ui/src/filter-tree.js';
import { humanMessage, issueText, locText, placeIssues } from '../../ui/src/validation-messages.js';

describe('dashboard validation messages', () => {
  const MESSAGES: Array<[given: string, want: string]> = [
    ['List should have at least 1 items', 'Choose at least one.'],
    ['List should have at least 2 items', 'Choose at least 2.'],
    ['List should have at most 3 items', 'Choose at most 3.'],
    ['String should have at least 1 characters', 'This cannot be empty.'],
    ['String should have at most 255 characters', 'Use at most 255 characters.'],
    ["String should match pattern '^[A-Z0-9-]+$'", 'This is not in the expected format.'],
    ['Field required', 'This is required.'],
    ['Input should be greater than or equal to 1', 'Use a number of at least 1.'],
    ['Input should be a valid email', 'Enter an e-mail address, such as name@example.com.'],
    // The service's own sentences pass as written.
    ['User is already a member of this organization', 'User is already a member of this organization'],
    [
      'operator contains applies to text fields; duration_ms is a number',
      'operator contains applies to text fields; duration_ms is a number',
    ],
  ];
  for (const [given, want] of MESSAGES) it(`${given} → ${want}`, () => expect(humanMessage(given)).to.equal(want));

  const PLACES: Array<[loc: Array<string | number>, want: string]> = [
    [[], ''],
    [['op'], 'op'],
    [['or', 1, 'value'], 'row 2 of the OR group, value'],
    [['and', 0, 'not', 'or', 2, 'field'], 'row 1 of the AND group, inside NOT, row 3 of the OR group, field'],
  ];
  for (const [loc, want] of PLACES) it(`filter place ${JSON.stringify(loc)} → "${want}"`, () => expect(filterLocText(loc)).to.equal(want));

  it('writes a whole issue with its place: filter rows from 1, list items from 1, fields by name', () => {
    expect(locText(['body', 'filter', 'or', 0, 'op'])).to.equal('filter, row 1 of the OR group, op');
    expect(locText(['body', 'filter'])).to.equal('filter');
    expect(locText(['body', 'indexed_attributes', 0])).to.equal('indexed_attributes, item 1');
    expect(issueText({ loc: ['body', 'permissions'], msg: 'List should have at least 1 items' })).to.equal(
      'permissions: Choose at least one.',
    );
    expect(issueText({ loc: [], msg: 'Field required' })).to.equal('This is required.');
  });

  it('finds the draft row a filter loc names, as the draft is sent', () => {
    const tree = toDraft({
      or: [{ field: 'service_name', op: 'eq', value: 'a' }, { not: { field: 'duration_ms', op: 'contains', value: '1' } }],
    });
    const second = tree.children[1];
    expect(draftNodeAt(tree, ['or', 1, 'not', 'op'])).to.equal(second.kind === 'not' ? second.child : undefined);
    expect(draftNodeAt(tree, ['or', 0, 'value'])).to.equal(tree.children[0]);
    expect(draftNodeAt(tree, [])).to.equal(tree);
    // A root group of one member is sent as that member: its loc starts at the member.
    const single = toDraft({ field: 'duration_ms', op: 'contains', value: '1' });
    expect(draftNodeAt(single, ['op'])).to.equal(single.children[0]);
    // A row that is no longer there: the deepest node still reached.
    expect(draftNodeAt(tree, ['or', 5, 'op'])).to.equal(tree);
  });

  it("splits issues between a form's fields and the rest, in words", () => {
    const { byField, rest } = placeIssues(
      [
        { loc: ['body', 'permissions'], msg: 'List should have at least 1 items' },
        { loc: ['body', 'name'], msg: 'String should have at least 1 characters' },
        { loc: ['query', 'app_id'], msg: 'Field required' },
      ],
      ['permissions'] as const,
    );
    expect(byField).to.deep.equal({ permissions: 'Choose at least one.' });
    expect(rest).to.deep.equal(['name: This cannot be empty.', 'app_id: This is required.']);
  });
});
