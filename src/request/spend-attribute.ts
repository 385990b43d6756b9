// The `attribute` of a spend summary (getOrganizationSpend, getApplicationSpend): required with
// group_by=attribute and refused otherwise, a 422 at the parameter either way. Whether the
// applications index it is the handler's question (src/management/spend.ts).
import { RequestValidationError } from '../errors.js';

export interface SpendAttributeQuery {
  group_by?: string;
  attribute?: string;
}

/** The attribute path to group by; undefined unless group_by=attribute. */
export function spendAttribute(query: SpendAttributeQuery): string | undefined {
  if (query.group_by === 'attribute' && query.attribute === undefined)
    throw attributeError('required with group_by=attribute: name an indexed attribute, e.g. span_attributes.tenant.id');
  if (query.group_by !== 'attribute' && query.attribute !== undefined)
    throw attributeError(`only taken with group_by=attribute (group_by is ${query.group_by ?? 'application'})`);
  return query.attribute;
}

export function attributeError(msg: string): RequestValidationError {
  return new RequestValidationError([{ loc: ['query', 'attribute'], msg, type: 'value_error.attribute' }]);
}
