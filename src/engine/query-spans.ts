// POST /engine/query (querySpans): a page of the window's spans matching the filter, newest first.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { findSpans } from '../storage/spans/span-pages.js';
import { engineRequest, exactJsonReply, requiredWindow } from './engine-request.js';
import { spanRecord } from './wire.js';

export function querySpans({ knex }: ServiceDeps): OperationHandler<operations['querySpans']> {
  return async (request) => {
    const parsed = engineRequest(request);
    const { page, limit } = parsed;
    const { items, total } = await findSpans(knex, { applicationId: parsed.applicationId, ...requiredWindow(parsed), filter: parsed.filter, page, limit });
    return exactJsonReply({ data: items.map(spanRecord), total, page, limit });
  };
}
