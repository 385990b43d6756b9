// The command line shared by `npm run token` and `npm run sign-in-link`: a local user (--sub,
// --email, --name), a lifetime (--ttl) within the command's bounds, --help, and the command's own
// options. A mistake prints the problem and the usage, and exits with 2.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface UserCommand<Extra> {
  user: { subject: string; email: string | undefined; name: string | undefined };
  ttlSeconds: number;
  /** The command's own options, as parsed. */
  extra: Extra;
  fail(message: string): never;
}

export function readUserCommand<Options extends OptionsConfig>(
  usage: string,
  ttl: { defaultSeconds: number; minSeconds: number; maxSeconds: number },
  options: Options,
): UserCommand<Record<keyof Options, string | boolean | undefined>> {
  const fail = (message: string): never => {
    console.error(`${message}\n${usage}`);
    process.exit(2);
  };
  const all: OptionsConfig = {
    sub: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    ttl: { type: 'string', default: String(ttl.defaultSeconds) },
    help: { type: 'boolean' },
    ...options,
  };
  const values = parseArgs({ options: all, strict: true }).values as Record<string, string | boolean | undefined>;
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const subject = text('sub');
  if (!subject) return fail('--sub is required');
  const ttlSeconds = Number(text('ttl'));
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < ttl.minSeconds || ttlSeconds > ttl.maxSeconds) {
    return fail(`--ttl must be a whole number of seconds between ${ttl.minSeconds} and ${ttl.maxSeconds}`);
  }
  const extra = Object.fromEntries(Object.keys(options).map((name) => [name, values[name]])) as Record<
    keyof Options,
    string | boolean | undefined
  >;
  return { user: { subject, email: text('email'), name: text('name') }, ttlSeconds, extra, fail };
}
