// The engine API's handler map, keyed by operationId of openapi/engine.yaml.
// Operations whose feature has not landed have no entry and answer 501.
import type { HandlerMap } from '../api/handler-types.js';
import type { ServiceDeps } from '../api/service-deps.js';

export function engineHandlers(_deps: ServiceDeps): HandlerMap {
  return {};
}
