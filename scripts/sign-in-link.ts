// `npm run --silent sign-in-link -- --sub <id> [--email <address>] [--name <name>]`: prints a
// one-time dashboard sign-in link for a local user, signed by the service's own key (the same
// data folder as the running service). It works once, for 10 minutes unless --ttl says otherwise
// (docs/dashboard.md, "Signing in"); the token rides in the URL's fragment, which the browser
// never sends to the server.
import { loadSigningKey } from '../src/auth/signing-key.js';
import { TokenService } from '../src/auth/tokens.js';
import { cliServiceUrl, loadConfig } from '../src/config.js';
import { readUserCommand } from './lib/user-command.js';

const USAGE = `usage: npm run --silent sign-in-link -- --sub <subject> [--email <address>] [--name <name>] [--ttl <seconds>] [--url <dashboard origin>]
  --sub    the user's subject (their identity at this service); required
  --email  e-mail address claim
  --name   display name claim
  --ttl    how long the link can be used, in seconds (default 600, at most 86400); it works once
  --url    the service's address as the browser reaches it (default: from PORT and HOST when set,
           else where npm start last listened, as it wrote in the data folder: data/service-url)`;

const { user, ttlSeconds, extra, fail } = readUserCommand(
  USAGE,
  { defaultSeconds: 600, minSeconds: 30, maxSeconds: 86_400 },
  { url: { type: 'string' } },
);
const config = loadConfig();
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return fail(`--url must be an absolute URL, got "${url}"`);
  }
}
const origin = originOf((extra.url as string | undefined) ?? cliServiceUrl(config));
const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
const link = await tokens.signSignInLink(user, ttlSeconds);
process.stdout.write(`${origin}/ui/sign-in#link=${link}\n`);
