// Where webhooks may go, table-driven: the URL rules at write time and the address checks of
// every attempt (literal addresses, names resolving to refused addresses, the allow list).
import { expect } from 'chai';
import { DestinationRefused, refusedAddress, resolveDestination, urlProblem } from '../../src/webhooks/destinations.js';

describe('webhook destinations', () => {
  const ADDRESSES: Array<[string, string | undefined]> = [
    ['8.8.8.8', undefined],
    ['2606:4700:4700::1111', undefined],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'private (unique local)'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'reserved (NAT64)'],
    ['2002:c0a8:101::1', 'reserved (6to4)'],
    ['172.32.0.1', undefined],
  ];
  for (const [address, kind] of ADDRESSES) {
    it(`${address} is ${kind ?? 'allowed'}`, () => {
      expect(refusedAddress(address)).to.equal(kind);
    });
  }

  const URLS: Array<[string, RegExp | undefined, string[]?]> = [
    ['https://hooks.example.com/x', undefined],
    ['http://hooks.example.com/x', /https/],
    ['ftp://hooks.example.com/x', /https/],
    ['not a url', /absolute URL/],
    ['https://user:pass@hooks.example.com/', /credentials/],
    ['https://127.0.0.2/', /loopback/],
    ['https://2130706433/', /loopback/],
    ['https://0x7f.1/', /loopback/],
    ['https://[::1]:8443/', /loopback/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    ['https://10.0.0.7/', /private/],
    ['https://192.168.0.10/', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[fe80::1]/', /link-local/],
    ['https://0.0.0.0/', /unspecified/],
    // A name is checked when resolved, at every attempt.
    ['https://localhost/', undefined],
    ['http://127.0.0.1:9000/hook', undefined, ['127.0.0.1']],
    ['http://127.0.0.1:9000/hook', undefined, ['127.0.0.1:9000']],
    ['http://127.0.0.1:9001/hook', /https/, ['127.0.0.1:9000']],
    ['https://127.0.0.1/hook', undefined, ['127.0.0.1:443']],
  ];
  for (const [url, problem, allowed = []] of URLS) {
    it(`${url}${allowed.length ? ` (allowed: ${allowed.join(',')})` : ''}: ${problem ?? 'accepted'}`, () => {
      const found = urlProblem(url, allowed);
      if (problem) expect(found).to.match(problem);
      else expect(found).to.equal(undefined);
    });
  }

  it('refuses a name when any of its addresses is refused, and pins the first address otherwise', async () => {
    const resolver = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const refused = await resolveDestination('https://hooks.example.com/', [], resolver(['93.184.215.14', '10.0.0.1'])).catch(
      (error) => error,
    );
    expect(refused).to.be.instanceOf(DestinationRefused);
    expect(refused.message).to.match(/resolves to 10\.0\.0\.1, a private address/);
    const mapped = await resolveDestination('https://hooks.example.com/', [], resolver(['::ffff:169.254.169.254'])).catch((error) => error);
    expect(mapped).to.be.instanceOf(DestinationRefused);
    const ok = await resolveDestination('https://hooks.example.com/', [], resolver(['93.184.215.14', '2606:2800::1']));
    expect(ok).to.include({ address: '93.184.215.14', family: 4 });
    const failed = await resolveDestination('https://hooks.example.com/', [], async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    }).catch((error) => error);
    expect(failed.message).to.match(/DNS lookup of hooks\.example\.com failed \(ENOTFOUND\)/);
    // An allowed host skips the address checks.
    expect(await resolveDestination('http://intranet:8080/', ['intranet'], resolver(['10.0.0.1']))).to.include({ address: '10.0.0.1' });
  });
});
