/**
 * The one outbound fetcher (src/outbound/): against sites on loopback, hostile ones included. The tests'
 * allow-list admits only 127.0.0.2 (see loopback-site.ts); every other private address must be refused.
 */
import zlib from 'node:zlib';
import { createAddressPolicy, parseCidrList } from '../src/outbound/address-policy';
import { createFetcher, type Fetcher } from '../src/outbound/fetcher';
import { OutboundError } from '../src/outbound/outbound-error';
import type { Resolver } from '../src/outbound/safe-lookup';
import { PUBLIC_TEST_HOST, startSite, TEST_ALLOW_CIDRS, type LoopbackSite } from './support/loopback-site';

const sites: LoopbackSite[] = [];
const fetchers: Fetcher[] = [];
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

async function site(...args: Parameters<typeof startSite>) {
  const started = await startSite(...args);
  sites.push(started);
  return started;
}

/** Names the tests make up, resolved by the fetcher's resolver hook instead of DNS. */
const testNames: Record<string, string[]> = {
  'public.test': [PUBLIC_TEST_HOST],
  'rebound.test': ['127.0.0.1'],
  'mixed.test': [PUBLIC_TEST_HOST, '10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
};
const resolve: Resolver = async (hostname) => {
  const addresses = testNames[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function fetcher(options: Parameters<typeof createFetcher>[0] = {}) {
  const created = createFetcher({ allowCidrs: TEST_ALLOW_CIDRS, resolve, timeoutMs: 5000, ...options });
  fetchers.push(created);
  return created;
}

async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundError);
    return (error as OutboundError).failure;
  }
  throw new Error('the fetch succeeded');
}

describe('address policy', () => {
  const policy = createAddressPolicy();
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
    '64:ff9b::a00:1', '2002:7f00:1::1', 'not-an-address',
  ])('when the address is %s, then it is refused', (address) => {
    expect(policy.allows(address)).toBe(false);
  });
  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('when the address is the public %s, then it is allowed', (address) => {
    expect(policy.allows(address)).toBe(true);
  });
  it('when the allow-list names a range, then only that range is let through', () => {
    const allowing = createAddressPolicy(parseCidrList('127.0.0.0/8, ::1/128'));
    expect(allowing.allows('127.0.0.1')).toBe(true);
    expect(allowing.allows('::1')).toBe(true);
    expect(allowing.allows('10.0.0.1')).toBe(false);
    expect(() => parseCidrList('127.0.0.1')).toThrow('"127.0.0.1" is not a CIDR range');
  });
});

describe('outbound fetcher', () => {
  it('when a public site answers, then its status, headers and body come back', async () => {
    const target = await site((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    const response = await fetcher().fetch({ url: `${target.origin}/page`, maxBytes: 1000 });
    expect(response).toMatchObject({ status: 200, url: `${target.origin}/page`, redirects: 0 });
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.body.toString()).toBe('hello');
  });

  it('when the allow-list is off, then a loopback site is refused before any request reaches it', async () => {
    const target = await site((_req, res) => res.end('secret'));
    const strict = fetcher({ allowCidrs: [] });
    expect(await failureOf(strict.fetch({ url: `${target.origin}/`, maxBytes: 1000 }))).toBe('blocked-address');
    expect(await failureOf(strict.fetch({ url: `http://[::1]:${target.port}/`, maxBytes: 1000 }))).toBe('blocked-address');
    expect(target.requests).toEqual([]);
  });

  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/admin`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['a name that resolves to loopback', (port: number) => `http://rebound.test:${port}/`],
    ['a name with a private address among public ones', (port: number) => `http://mixed.test:${port}/`],
    ['a name that resolves to the metadata address', () => 'http://metadata.test/'],
  ])('when a public site redirects to %s, then the redirect is refused and the private site sees nothing', async (_name, location) => {
    const inside = await site((_req, res) => res.end('internal'), '127.0.0.1');
    const hostile = await site((_req, res) => res.writeHead(302, { location: location(inside.port) }).end());
    expect(await failureOf(fetcher().fetch({ url: `${hostile.origin}/go`, maxBytes: 1000 }))).toBe('blocked-address');
    expect(hostile.requests).toEqual(['GET /go']);
    expect(inside.requests).toEqual([]);
  });

  it('when a name resolves to loopback, then it is refused with the allow-list off', async () => {
    const inside = await site((_req, res) => res.end('internal'), '127.0.0.1');
    expect(await failureOf(fetcher({ allowCidrs: [] }).fetch({ url: `http://rebound.test:${inside.port}/`, maxBytes: 1000 }))).toBe('blocked-address');
    expect(inside.requests).toEqual([]);
  });

  it('when a name resolves to a public address, then the connection goes to that checked address', async () => {
    const target = await site((req, res) => res.end(`host ${req.headers.host}`));
    const response = await fetcher().fetch({ url: `http://public.test:${target.port}/`, maxBytes: 1000 });
    expect(response.body.toString()).toBe(`host public.test:${target.port}`);
  });

  it('when a name would rebind to loopback after its check, then the connection still goes to the address checked (one resolution per connection)', async () => {
    const outside = await site((_req, res) => res.end('public'));
    // The same port on 127.0.0.1: were the name resolved again at connect time, this one would answer.
    const inside = await site((_req, res) => res.end('internal'), '127.0.0.1', outside.port);
    const answers: string[] = [];
    // A rebinding DNS server: the first answer passes the check, every later one points inside.
    const rebinding: Resolver = async () => {
      const address = answers.length === 0 ? PUBLIC_TEST_HOST : '127.0.0.1';
      answers.push(address);
      return [{ address, family: 4 }];
    };
    const response = await fetcher({ resolve: rebinding }).fetch({ url: `http://rebinding.test:${outside.port}/`, maxBytes: 100 });
    expect(response.body.toString()).toBe('public');
    expect(answers).toEqual([PUBLIC_TEST_HOST]);
    expect(inside.requests).toEqual([]);
  });

  it('when redirects go on past the limit, then the fetch stops at the limit', async () => {
    const loop = await site((req, res) => res.writeHead(301, { location: `/hop${Number(req.url!.slice(4) || 0) + 1}` }).end());
    expect(await failureOf(fetcher({ maxRedirects: 3 }).fetch({ url: `${loop.origin}/hop0`, maxBytes: 1000 }))).toBe('too-many-redirects');
    expect(loop.requests).toEqual(['GET /hop0', 'GET /hop1', 'GET /hop2', 'GET /hop3']);
  });

  it('when a redirect points to another scheme, or a URL carries credentials, then it is refused', async () => {
    const hostile = await site((_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    expect(await failureOf(fetcher().fetch({ url: `${hostile.origin}/`, maxBytes: 1000 }))).toBe('bad-url');
    expect(await failureOf(fetcher().fetch({ url: 'ftp://example.com/', maxBytes: 1000 }))).toBe('bad-url');
    expect(await failureOf(fetcher().fetch({ url: `http://user:pw@${PUBLIC_TEST_HOST}:${hostile.port}/`, maxBytes: 1000 }))).toBe('bad-url');
  });

  it('when a chunked body goes on forever, then the fetch stops at the size limit and closes the connection', async () => {
    const endless = await site((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const closed = endless.nextClose();
    expect(await failureOf(fetcher().fetch({ url: `${endless.origin}/huge.png`, maxBytes: 256 * 1024 }))).toBe('too-large');
    await closed;
  });

  it('when a body declares a length over the limit, then it is refused unread', async () => {
    const target = await site((_req, res) => res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) }).write('x'));
    expect(await failureOf(fetcher().fetch({ url: `${target.origin}/`, maxBytes: 1024 }))).toBe('too-large');
  });

  it('when a small gzip body inflates past the limit, then it is refused', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const target = await site((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) }).end(bomb));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(await failureOf(fetcher().fetch({ url: `${target.origin}/`, maxBytes: 64 * 1024 }))).toBe('too-large');
    const ok = zlib.gzipSync(Buffer.from('<html>small</html>'));
    const fine = await site((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(ok));
    expect((await fetcher().fetch({ url: `${fine.origin}/`, maxBytes: 1024 })).body.toString()).toBe('<html>small</html>');
  });

  it('when a site drips its body a byte at a time, then the total deadline ends the fetch', async () => {
    const drip = await site((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    expect(await failureOf(fetcher({ timeoutMs: 800 }).fetch({ url: `${drip.origin}/`, maxBytes: 1024 * 1024 }))).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('when a site never sends its headers, then the first-byte limit ends the fetch', async () => {
    const silent = await site(() => undefined);
    expect(await failureOf(fetcher({ firstByteTimeoutMs: 300 }).fetch({ url: `${silent.origin}/`, maxBytes: 1024 }))).toBe('timeout');
  });

  it('when nothing listens or the name does not exist, then the failure says so', async () => {
    const gone = await site((_req, res) => res.end());
    const port = gone.port;
    await gone.close();
    sites.splice(sites.indexOf(gone), 1);
    expect(await failureOf(fetcher().fetch({ url: `http://${PUBLIC_TEST_HOST}:${port}/`, maxBytes: 1024 }))).toBe('refused');
    expect(await failureOf(fetcher().fetch({ url: 'http://no-such-host.test/', maxBytes: 1024 }))).toBe('dns');
  });
});
