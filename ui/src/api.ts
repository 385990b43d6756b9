// Typed clients of the engine and management APIs (openapi-fetch over the generated types of
// openapi/*.yaml), sending the session's bearer token like any other client. A 401 asks the
// session for a new token; where there is none (the session ended), the user signs in again.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths as EnginePaths } from '../../src/generated/engine';
import type { paths as ManagementPaths } from '../../src/generated/management';
import { currentToken, tokenRefused } from './session';
import { issueText } from './validation-messages';

const bearer: Middleware = {
  async onRequest({ request }) {
    const token = await currentToken();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) tokenRefused();
    return response;
  },
};

export const engine = createClient<EnginePaths>({ baseUrl: location.origin });
engine.use(bearer);
export const management = createClient<ManagementPaths>({ baseUrl: location.origin });
management.use(bearer);

/** One problem of a 422 (HTTPValidationError): where it is (`["body", "currency"]`) and what is wrong. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
}

/** A failed call, with the message the service gave and, for a 422, its issues (a form shows each beside its field). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
  }
}

/** The issues of a 422's `detail` list; none for any other answer. */
export function validationIssues(body: unknown): ValidationIssue[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return [];
  return detail
    .filter((issue): issue is { loc?: unknown; msg?: unknown } => typeof issue === 'object' && issue !== null)
    .map((issue) => ({
      loc: Array.isArray(issue.loc) ? issue.loc.filter((part) => typeof part === 'string' || typeof part === 'number') : [],
      msg: typeof issue.msg === 'string' ? issue.msg : '',
    }));
}

/** The service's own words for a failure: `detail` (a sentence or validation issues) or OAuth's `error_description`. */
export function problemMessage(status: number, body: unknown): string {
  const problem = body as { detail?: unknown; error_description?: unknown } | null;
  if (typeof problem?.detail === 'string') return problem.detail;
  if (Array.isArray(problem?.detail)) {
    // In words, with filter rows counted from 1 (ui/src/validation-messages.ts).
    return validationIssues(body).map(issueText).join('; ');
  }
  if (typeof problem?.error_description === 'string') return problem.error_description;
  return `the service answered ${status}`;
}

/** The data of a successful call; throws ApiError otherwise. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw new ApiError(response.status, problemMessage(response.status, error), validationIssues(error));
  return data as T;
}
