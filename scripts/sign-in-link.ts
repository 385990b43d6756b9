// `npm run --silent sign-in-link -- --sub <id> [--email <address>] [--name <name>]`: prints a
// one-time dashboard sign-in link for a local user, signed by the service's own key (the same
// data folder as the running service). It works once, for 10 minutes unless --ttl says otherwise
// (docs/dashboard.md, "Signing in"); the token rides in the URL's fragment, which the browser
// never sends to the server.
import { parseArgs } from 'node:util';
import { loadSigningKey } from '../src/auth/signing-key.js';
import { TokenService } from '../src/auth/tokens.js';
import { loadConfig, localServiceUrl } from '../src/config.js';

const USAGE = `usage: npm run --silent sign-in-link -- --sub <subject> [--email <address>] [--name <name>] [--ttl <seconds>] [--url <dashboard origin>]
  --sub    the user's subject (their identity at this service); required
  --email  e-mail address claim
  --name   display name claim
  --ttl    how long the link can be used, in seconds (default 600, at most 86400); it works once
  --url    the service's address as the browser reaches it (default: where npm start listens, PORT and HOST)`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    sub: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    ttl: { type: 'string', default: '600' },
    url: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.sub) fail('--sub is required');
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 30 || ttl > 86_400) fail('--ttl must be a whole number of seconds between 30 and 86400');
const config = loadConfig();
let origin: string;
try {
  origin = new URL(values.url ?? localServiceUrl(config.host, config.port)).origin;
} catch {
  fail(`--url must be an absolute URL, got "${values.url}"`);
}
const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
const link = await tokens.signSignInLink({ subject: values.sub, email: values.email, name: values.name }, ttl);
process.stdout.write(`${origin}/ui/sign-in#link=${link}\n`);
