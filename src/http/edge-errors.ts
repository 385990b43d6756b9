// The failures only the HTTP edge knows: a method the path does not have, and an operation of a
// document whose feature has not landed. The domain's failures are in src/errors.ts.
import { ServiceError } from '../errors.js';

/** 405, with the `Allow` header RFC 9110 §15.5.6 requires: the methods the path does support. */
export class MethodNotAllowedError extends ServiceError {
  constructor(readonly allowed: readonly string[]) {
    super('Method Not Allowed');
  }
}

/** 501: the document declares the operation, no handler implements it yet. */
export class NotImplementedError extends ServiceError {
  constructor(operationId: string) {
    super(`${operationId} is not implemented yet`);
  }
}
