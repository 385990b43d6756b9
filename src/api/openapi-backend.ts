// One place that configures openapi-backend for our OpenAPI 3.1 documents (server and tests).
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation, type Request } from 'openapi-backend';
import { integerTextErrors } from './integer-parameters.js';

/**
 * openapi-backend checks the document against the OpenAPI 3.0 schema whatever its version, and
 * rejects valid 3.1 (type arrays, contentMediaType). Our documents are linted by Redocly against
 * 3.1 in CI instead, so that check is skipped here; strict mode still rejects unknown operationIds.
 */
class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document;
  }

  /**
   * openapi-backend flattens the document's operations anew on every lookup, several times for
   * each request it routes and validates (measured: about 0.7 ms of CPU a request). The
   * document does not change once loaded, so the list is made once and shared, read-only.
   */
  override async init(): Promise<this> {
    await super.init();
    const operations = this.router.getOperations();
    for (const operation of operations) Object.freeze(operation);
    this.router.getOperations = () => operations;
    this.judgeIntegerText();
    return this;
  }

  /**
   * Integer parameters are checked as text before Ajv's coercion reads `1e3` as 1000; the text's
   * error replaces whatever Ajv says about the coerced number (`1e309` is not "above 100").
   */
  private judgeIntegerText(): void {
    const validateRequest = this.validator.validateRequest.bind(this.validator);
    this.validator.validateRequest = (request: Request, operation?: Operation | string) => {
      const resolved =
        typeof operation === 'string' ? this.router.getOperation(operation) : (operation ?? this.router.matchOperation(request));
      const textErrors = resolved ? integerTextErrors(resolved, this.router.parseRequest(request, resolved)) : [];
      const result = validateRequest(request, operation);
      if (textErrors.length === 0) return result;
      const judged = new Set(textErrors.map((error) => error.instancePath));
      const others = (result.errors ?? []).filter((error) => !judged.has(error.instancePath));
      return { ...result, valid: false, errors: [...textErrors, ...others] };
    };
  }
}

export interface BackendOptions {
  definition: Document;
  /** Coerce query/path/header strings to the document's types and apply its defaults. */
  coerceRequests: boolean;
}

export function createOpenApiBackend({ definition, coerceRequests }: BackendOptions): OpenAPIBackend {
  return new OpenApi31Backend({
    definition,
    strict: true,
    // Validators are compiled when an operation is first used, not at start: compiling every
    // request and response validator of both documents took 1.8 s of each start (the service
    // never uses the response ones), against 5 to 15 ms once, at an operation's first request.
    // Quick mode also dereferences the document synchronously (dereference-json-schema, which
    // keeps circular references such as FilterNode's).
    quick: true,
    coerceTypes: coerceRequests,
    ajvOpts: { allErrors: true, useDefaults: coerceRequests, strict: false },
    customizeAjv: (ajv) => {
      // openapi-backend adds only the OpenAPI numeric formats; date-time and email need ajv-formats.
      (addFormats as unknown as (instance: typeof ajv) => void)(ajv);
      return ajv;
    },
  });
}
