// A header parameter sent empty is malformed, not absent: every header whose schema has a
// `minLength` (X-Vendor-App-Id, required on the engine reads and optional on ingestion) is a 422
// at its own location, for users and API keys alike, from the validation every parameter goes
// through. HTTP trims a header's surrounding blanks, so whitespace alone arrives empty too.
import { expect } from 'chai';
import { seedOwnedResources } from '../support/accounts.js';
import { engineCaller } from '../support/auth.js';
import { call, documentOperations } from '../support/contract.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase } from '../support/test-server.js';

interface HeaderParameter {
  name: string;
  in: string;
  schema?: { minLength?: number };
}

const withShortHeaders = (await documentOperations()).flatMap((entry) =>
  ((entry.operation.parameters ?? []) as HeaderParameter[])
    .filter((parameter) => parameter.in === 'header' && (parameter.schema?.minLength ?? 0) > 0)
    .map((parameter) => ({ entry, header: parameter.name.toLowerCase() })),
);

onEachDatabase('header parameters sent empty', (app) => {
  let ids: ResourceIds;
  let userToken: string;
  let keyToken: string;
  before(async () => {
    ({ ids, token: userToken } = await seedOwnedResources(app()));
    keyToken = ((await engineCaller(app())).headers.Authorization as string).replace('Bearer ', '');
  });

  it('covers the optional X-Vendor-App-Id of ingestion and the required one of the reads', () => {
    const covered = withShortHeaders.map(({ entry }) => entry.operationId);
    expect(covered).to.include.members(['exportTraces', 'querySpans', 'listTraces', 'getTrace']);
  });

  for (const { entry, header } of withShortHeaders) {
    it(`${entry.operationId}: ${header} empty or blank is a 422 at ["header", "${header}"], for a user and for an API key`, async () => {
      const request = buildRequest(entry, ids);
      for (const [caller, token] of [
        ['user', userToken],
        ['key', keyToken],
      ] as const) {
        for (const sent of ['', '   ']) {
          const others = Object.entries(request.options.headers ?? {}).filter(([name]) => name.toLowerCase() !== header);
          const response = await call(app().url, request.method, request.path, {
            ...request.options,
            headers: { ...Object.fromEntries(others), [header]: sent },
            token,
          });
          expect(response.status, `${caller}, ${JSON.stringify(sent)}: ${response.text}`).to.equal(422);
          expect(
            response.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
            caller,
          ).to.deep.include(['header', header]);
        }
      }
    });
  }
});
