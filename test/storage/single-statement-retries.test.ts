// The writes that are one statement on their own (not in a write transaction) are retried on a
// lock conflict too: on Galera a certification conflict fails even an autocommit statement
// (after the server's own one retry, wsrep_retry_autocommit). A stand-in server
// (test/support/failing-mysql-server.ts) answers the first attempts with the deadlock error
// Galera sends, then OK; a conflict that outlasts the retries is passed on (503).
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import type { ApiKeyCredentials } from '../../src/storage/accounts/api-key-credentials.js';
import { touchApiKey } from '../../src/storage/accounts/api-key-credentials.js';
import { NO_INDEXED_ATTRIBUTES } from '../../src/storage/accounts/indexed-attributes.js';
import { consumeSignInLink } from '../../src/storage/accounts/sign-in-links.js';
import { knexSettings } from '../../src/storage/database.js';
import { recordUsage, zeroCounts } from '../../src/storage/usage/usage-counts.js';
import { FailingMysqlServer, type ServerError } from '../support/failing-mysql-server.js';

const DEADLOCK: ServerError = { errno: 1213, message: 'Deadlock found when trying to get lock; try restarting transaction' };
const DUPLICATE: ServerError = { errno: 1062, message: "Duplicate entry 'link' for key 'PRIMARY'" };
const ok = (affectedRows: number) => ({ affectedRows });

describe('single-statement writes on a lock conflict', () => {
  const server = new FailingMysqlServer();
  let knex: Knex;

  before(async () => {
    await server.start();
    // One connection, opened now: Knex asks a new connection for the server's version first.
    knex = knexFactory({ ...knexSettings(server.url, '/nonexistent'), pool: { min: 0, max: 1 }, log: { warn: () => undefined } });
    await knex.raw('SELECT 1').catch(() => undefined);
  });

  after(async () => {
    await knex.destroy();
    await server.stop();
  });

  /** The statements `work` sends, with the stand-in answering `answers` first. */
  async function statementsOf(
    answers: typeof server.answers,
    work: () => Promise<unknown>,
  ): Promise<{ result: unknown; statements: string[] }> {
    server.answers = [...answers];
    const before = server.statements.length;
    const result = await work();
    expect(server.answers, 'every scripted answer was used').to.deep.equal([]);
    return { result, statements: server.statements.slice(before) };
  }

  const key: ApiKeyCredentials = {
    id: 'ak_1',
    applicationId: 'app_1',
    organizationId: 'org_1',
    permissions: [],
    secretHash: '',
    secretGeneration: 1,
    lastUsedAt: null,
    expiresAt: null,
    previousSecret: null,
    indexedAttributes: NO_INDEXED_ATTRIBUTES,
    readAt: 0,
    dailySpanQuota: null,
  };

  it("the API key's last-use touch", async () => {
    const { statements } = await statementsOf([DEADLOCK, DEADLOCK, ok(1)], () => touchApiKey(knex, key));
    expect(statements).to.have.length(3);
    expect(statements.every((sql) => sql.startsWith('update `api_keys`'))).to.equal(true);
  });

  it('the sign-in link exchange: the cleanup and the insert; a conflict then a duplicate is a link used before', async () => {
    const first = await statementsOf([DEADLOCK, ok(0), DEADLOCK, ok(1)], () => consumeSignInLink(knex, 'link', Date.now() + 60_000));
    expect(first.result).to.equal(true);
    expect(first.statements.map((sql) => sql.split(' ')[0])).to.deep.equal(['delete', 'delete', 'insert', 'insert']);
    const second = await statementsOf([ok(0), DEADLOCK, DUPLICATE], () => consumeSignInLink(knex, 'link', Date.now() + 60_000));
    expect(second.result).to.equal(false);
  });

  it("a request's usage counted on its own (no span stored)", async () => {
    const delta = { ...zeroCounts(), application_id: 'app_1', api_key: 'ak_1', hour_start: 0, requests: 1, requests_refused: 1 };
    const { statements } = await statementsOf([DEADLOCK, ok(1)], () => recordUsage(knex, delta));
    expect(statements).to.have.length(2);
  });

  it('passes a conflict on that outlasts the retries (answered 503)', async () => {
    server.answers = Array(5).fill(DEADLOCK);
    let failure: unknown;
    await touchApiKey(knex, key).catch((error: unknown) => (failure = error));
    expect(failure).to.include({ code: 'ER_LOCK_DEADLOCK' });
    expect(server.answers).to.deep.equal([]);
  });
});
