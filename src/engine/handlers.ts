// The engine API's handler map, keyed by operationId of openapi/engine.yaml.
// Operations whose feature has not landed have no entry and answer 501.
import type { HandlerMap } from '../api/handler-types.js';

export function engineHandlers(): HandlerMap {
  return {};
}
