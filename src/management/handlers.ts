// The management API's handler map, keyed by operationId of openapi/management.yaml.
// Operations whose feature has not landed have no entry and answer 501.
import type { HandlerMap } from '../api/handler-types.js';
import type { ServiceDeps } from '../api/service-deps.js';
import { createAccessToken } from './create-access-token.js';
import { getJwks } from './get-jwks.js';

export function managementHandlers(deps: ServiceDeps): HandlerMap {
  return {
    createAccessToken: createAccessToken(deps),
    getJwks: getJwks(deps),
  };
}
