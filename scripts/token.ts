// `npm run --silent token -- --sub <id> --email <address> --name <name>`: prints one dashboard-user
// token signed by the service's own key (created in the data folder if it does not exist yet).
import { parseArgs } from 'node:util';
import { DASHBOARD_USER_PERMISSIONS, PERMISSIONS, type Permission } from '../src/permissions.js';
import { loadSigningKey } from '../src/auth/signing-key.js';
import { TokenService } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';

const USAGE = `usage: npm run --silent token -- --sub <subject> [--email <address>] [--name <name>] [--ttl <seconds>] [--permissions a,b]
  --sub          the user's subject (their identity at this issuer); required
  --email        e-mail address claim
  --name         display name claim
  --ttl          lifetime in seconds (default 86400)
  --permissions  comma-separated permissions (default: every dashboard-user permission)`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    sub: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    ttl: { type: 'string', default: '86400' },
    permissions: { type: 'string' },
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
if (!Number.isInteger(ttl) || ttl < 60 || ttl > 31_536_000) fail('--ttl must be a whole number of seconds between 60 and 31536000');
const permissions = values.permissions ? values.permissions.split(',').map((item) => item.trim()) : [...DASHBOARD_USER_PERMISSIONS];
const unknown = permissions.filter((item) => !(PERMISSIONS as readonly string[]).includes(item));
if (unknown.length > 0) fail(`unknown permission(s): ${unknown.join(', ')}`);

const config = loadConfig();
const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
const token = await tokens.signUserToken({ subject: values.sub, email: values.email, name: values.name, permissions: permissions as Permission[] }, ttl);
process.stdout.write(`${token}\n`);
