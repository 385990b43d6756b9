// `npm run seed:demo` as a user runs it: it finds the service where `npm start` puts it (PORT,
// HOST), says in one line when nothing answers there, prints what the README promises, and the
// span count its help and the README state is the one it sends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call } from '../support/contract.js';
import { runSeed } from '../support/seed-demo-run.js';
import { onEachDatabase } from '../support/test-server.js';
import { closedPort } from '../support/ports.js';

const claimedSpans = (text: string): number | undefined => {
  const match = /about ([\d,]+) spans/.exec(text);
  return match ? Number(match[1]!.replace(/,/g, '')) : undefined;
};

describe('npm run seed:demo', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-seed-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('tries the service at PORT and HOST, and says so in one line with exit code 1 when nothing answers', async () => {
    const port = await closedPort();
    const { code, stderr } = await runSeed([], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    expect(code).to.equal(1);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.include(`http://127.0.0.1:${port}`).and.to.include('--url').and.to.include('SPANLEDGER_URL');
    expect(stderr).not.to.match(/fetch failed|\n\s+at /);
  });

  it('names the URL it was given when nothing answers there', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await runSeed(['--token', 't', '--app-id', 'app_x'], { SPANLEDGER_URL: url, DATA_DIR: dataDir });
    expect(code).to.equal(1);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.include(url);
  });

  it('sends the number of spans its help and the README state, by default', async () => {
    const help = await runSeed(['--help']);
    const dryRun = await runSeed(['--dry-run']);
    expect(dryRun.code, dryRun.stderr).to.equal(0);
    const sent = Number(/would send (\d+) spans in 2000 traces/.exec(dryRun.stdout)?.[1]);
    const inHelp = claimedSpans(help.stdout);
    const inReadme = claimedSpans(fs.readFileSync('README.md', 'utf8'));
    expect(inHelp, help.stdout).to.be.a('number');
    expect(inReadme, 'README').to.equal(inHelp);
    expect(Math.abs(inHelp! - sent) / sent, `help says about ${inHelp}, the default sends ${sent}`).to.be.lessThan(0.05);
  });
});

onEachDatabase('npm run seed:demo against the service', (app) => {
  it('finds the service from PORT, fills a demo application and prints export TOKEN= and export APP= lines', async () => {
    const { config } = app();
    const { code, stdout, stderr } = await runSeed(['--traces', '3'], {
      PORT: new URL(app().url).port,
      HOST: '127.0.0.1',
      SIGNING_KEY_FILE: config.auth.signingKeyFile,
      TOKEN_ISSUER: config.auth.tokenIssuer,
      TOKEN_AUDIENCE: config.auth.tokenAudience,
    });
    expect(code, stderr).to.equal(0);
    const appId = /^\s*export APP=(app_\w+)$/m.exec(stdout)?.[1];
    expect(appId, stdout).to.be.a('string');
    expect(stdout).to.match(/^\s*export TOKEN=\S+$/m);
    const stored = await app().server.knex('spans').where({ application_id: appId }).count({ count: '*' });
    expect(Number(stored[0]!.count)).to.be.greaterThan(0);
    // The printed exporter headers work as an SDK reads them (URL-decoded), with no X-Vendor-App-Id.
    const headers = /^\s*export OTEL_EXPORTER_OTLP_HEADERS='Authorization=(\S+)'$/m.exec(stdout)?.[1];
    expect(headers, stdout).to.be.a('string');
    const exported = await call(app().url, 'POST', '/v1/traces', {
      headers: { Authorization: decodeURIComponent(headers!), 'Content-Type': 'application/json' },
      rawBody: '{}',
    });
    expect(exported.status, exported.text).to.equal(200);
    // The first trace fails: ERROR spans with a recorded exception, and the next request links to it.
    const failed = await app()
      .server.knex('spans')
      .where({ application_id: appId, status_code: 'STATUS_CODE_ERROR' })
      .select('status_message', 'scope_name', 'events');
    expect(failed.length, 'ERROR spans').to.be.greaterThan(0);
    for (const span of failed) {
      expect(span.status_message).to.be.a('string').and.not.equal('');
      expect(span.scope_name).to.match(/^@acme\//);
      const events = typeof span.events === 'string' ? JSON.parse(span.events) : span.events;
      expect(Object.keys(events.find((event: { name: string }) => event.name === 'exception').attributes)).to.include.members([
        'exception.type',
        'exception.message',
        'exception.stacktrace',
      ]);
    }
    const linked = await app().server.knex('spans').where({ application_id: appId }).whereNotNull('links').count({ count: '*' });
    expect(Number(linked[0]!.count), 'spans with links').to.be.greaterThan(0);
  });
});
