// Where a webhook may be sent (SSRF): an `https:` URL without credentials, whose host resolves
// only to public addresses; the hosts of the operator's allow list (WEBHOOK_ALLOWED_HOSTS) are
// exempt from both rules. A URL is checked when it is written (a literal address there already
// fails) and again at every attempt, where the name is resolved, every address it has is
// checked, and the connection goes to the address checked (no second lookup to rebind).
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

export const URL_MAX_LENGTH = 2048;

/** The ranges no webhook goes to (IPv4-mapped IPv6 addresses are checked as their IPv4 address). */
const REFUSED: ReadonlyArray<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'ipv4', 'reserved (documentation)'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved (benchmarking)'],
  ['198.51.100.0', 24, 'ipv4', 'reserved (documentation)'],
  ['203.0.113.0', 24, 'ipv4', 'reserved (documentation)'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // Addresses that carry an IPv4 address inside (NAT64's well-known prefix, 6to4): a gateway would
  // forward to that address, private or not, so they are refused whole.
  ['64:ff9b::', 96, 'ipv6', 'reserved (NAT64)'],
  ['64:ff9b:1::', 48, 'ipv6', 'reserved (local NAT64)'],
  ['2002::', 16, 'ipv6', 'reserved (6to4)'],
  ['100::', 64, 'ipv6', 'reserved (discard)'],
  ['2001:db8::', 32, 'ipv6', 'reserved (documentation)'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'reserved (site-local)'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const LISTS = REFUSED.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, kind };
});

/** Why no webhook may go to `address` (an IPv4 or IPv6 address), or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // BlockList matches an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges.
  return LISTS.find(({ list }) => list.check(address, type))?.kind;
}

/** A URL's host as an address, when it is one (`[::1]` is `::1`). */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Whether the URL's host is on the operator's allow list (as `host`, or `host:port` with its port). */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  return allowedHosts.includes(host) || allowedHosts.includes(`${host}:${defaultPort(url)}`);
}

/** What is wrong with a webhook URL as written, or undefined; the message says how to fix it. */
export function urlProblem(text: string, allowedHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `url must be an https:// URL (${url.protocol} is not)`;
  if (url.username || url.password) return 'url must not carry credentials (user:password@); authenticate the request by its signature';
  const allowed = isAllowedHost(url, allowedHosts);
  if (url.protocol !== 'https:' && !allowed) return 'url must be an https:// URL (http:// only for the hosts the operator allows)';
  const address = literalAddress(url.hostname);
  const refused = address === undefined || allowed ? undefined : refusedAddress(address);
  if (refused) return `url must not point at a ${refused} address (${address}): webhooks go to public addresses only`;
  return undefined;
}

export interface Destination {
  url: URL;
  /** The address to connect to: checked, and pinned (no second lookup). */
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A failed check of the destination at delivery time; its message is the attempt's error. */
export class DestinationRefused extends Error {}

/** Resolves the URL's host and checks every address it has; the first is where the POST goes. */
export async function resolveDestination(
  text: string,
  allowedHosts: readonly string[],
  resolve: Resolver = systemResolver,
): Promise<Destination> {
  const problem = urlProblem(text, allowedHosts);
  if (problem) throw new DestinationRefused(problem);
  const url = new URL(text);
  const literal = literalAddress(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (literal !== undefined) addresses = [{ address: literal, family: isIP(literal) }];
  else {
    try {
      addresses = await resolve(url.hostname);
    } catch (error) {
      throw new DestinationRefused(`DNS lookup of ${url.hostname} failed (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  if (addresses.length === 0) throw new DestinationRefused(`DNS lookup of ${url.hostname} found no address`);
  if (!isAllowedHost(url, allowedHosts)) {
    for (const { address } of addresses) {
      const refused = refusedAddress(address);
      if (refused)
        throw new DestinationRefused(`${url.hostname} resolves to ${address}, a ${refused} address: webhooks go to public addresses only`);
    }
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
