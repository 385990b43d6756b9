// `npm run --silent token -- --sub <id> --email <address> --name <name>`: prints one dashboard-user
// token signed by the service's own key (created in the data folder if it does not exist yet).
import { DASHBOARD_USER_PERMISSIONS, PERMISSIONS, type Permission } from '../src/permissions.js';
import { loadSigningKey } from '../src/auth/signing-key.js';
import { TokenService } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';
import { readUserCommand } from './lib/user-command.js';

const USAGE = `usage: npm run --silent token -- --sub <subject> [--email <address>] [--name <name>] [--ttl <seconds>] [--permissions a,b]
  --sub          the user's subject (their identity at this issuer); required
  --email        e-mail address claim
  --name         display name claim
  --ttl          lifetime in seconds (default 86400)
  --permissions  comma-separated permissions (default: every dashboard-user permission)`;

const { user, ttlSeconds, extra, fail } = readUserCommand(
  USAGE,
  { defaultSeconds: 86_400, minSeconds: 60, maxSeconds: 31_536_000 },
  { permissions: { type: 'string' } },
);
const permissions =
  typeof extra.permissions === 'string' ? extra.permissions.split(',').map((item) => item.trim()) : [...DASHBOARD_USER_PERMISSIONS];
const unknown = permissions.filter((item) => !(PERMISSIONS as readonly string[]).includes(item));
if (unknown.length > 0) fail(`unknown permission(s): ${unknown.join(', ')}`);

const config = loadConfig();
const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
const token = await tokens.signUserToken({ ...user, permissions: permissions as Permission[] }, ttlSeconds);
process.stdout.write(`${token}\n`);
