// The management API's handler map, keyed by operationId of openapi/management.yaml.
// Operations whose feature has not landed have no entry and answer 501.
import type { HandlerMap } from '../api/handler-types.js';

export function managementHandlers(): HandlerMap {
  return {};
}
