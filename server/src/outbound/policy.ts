import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Resolves a host name to its addresses (DNS by default; tests pass their own, so nothing leaves the host). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Thrown, before any connection is made, for a call the outbound policy refuses. */
export class OutboundRefused extends Error {
  readonly code = 'EOUTBOUND_REFUSED';
}

/** Loopback: allowed only under the development allowance. Lists per family: a BlockList matches IPv4 rules
 * against IPv4-mapped IPv6 addresses and back, and mapped addresses are refused outright below. */
const loopback4 = new BlockList();
loopback4.addSubnet('127.0.0.0', 8, 'ipv4');
const loopback6 = new BlockList();
loopback6.addAddress('::1', 'ipv6');

/** A BlockList of one family's subnets, each a network address and its prefix length. */
function subnets(family: 'ipv4' | 'ipv6', list: [network: string, prefix: number][]): BlockList {
  const blockList = new BlockList();
  for (const [network, prefix] of list) blockList.addSubnet(network, prefix, family);
  return blockList;
}

/**
 * Never a target: "this network", private, CGNAT, link-local (cloud metadata at 169.254.169.254), reserved,
 * documentation, benchmarking, multicast and broadcast ranges; in IPv6 (after IANA's IPv6 Special-Purpose Address
 * Registry) the unspecified and IPv4-compatible block, IPv4-mapped (`::ffff:127.0.0.1`), IPv4-translated
 * (`::ffff:0:127.0.0.1`), NAT64, Teredo and 6to4 (they carry an IPv4 address that could be any of the above),
 * discard-only and the dummy prefix, the IETF protocol assignments block (Teredo, benchmarking, ORCHID and
 * ORCHIDv2, DETs, the AMT and AS112 anycasts: none an ordinary host), documentation (both blocks), segment
 * routing SIDs, unique-local (AWS metadata at fd00:ec2::254), link- and site-local, and multicast.
 */
const forbidden4 = subnets('ipv4', [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]);
const forbidden6 = subnets('ipv6', [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['100:0:0:1::', 64],
  // 2001::/23 holds Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID 2001:10::/28, ORCHIDv2 2001:20::/28 and
  // DETs 2001:30::/28; ordinary allocations begin at 2001:200::.
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
]);

type AddressKind = 'public' | 'loopback' | 'forbidden';

/** What an IP address is to the policy (anything that does not parse is forbidden). */
export function addressKind(address: string): AddressKind {
  const family = isIP(address);
  if (family === 0) return 'forbidden';
  if (family === 4) {
    if (loopback4.check(address, 'ipv4')) return 'loopback';
    return forbidden4.check(address, 'ipv4') ? 'forbidden' : 'public';
  }
  if (loopback6.check(address, 'ipv6')) return 'loopback';
  return forbidden6.check(address, 'ipv6') ? 'forbidden' : 'public';
}

/**
 * Where the server may send its own HTTP calls (webhooks, the push URL): `https` to public addresses only. The
 * development allowance (`DEVDATA_ALLOW_LOOPBACK_WEBHOOKS`) adds loopback, over http or https, and nothing
 * else. A URL is checked when it is registered (its host name resolved) and again on every call: the agents'
 * lookup vets the addresses it resolves before the socket connects, so a name that later resolves inward (DNS
 * rebinding) is refused too. A host given as an IP address is vetted before the call, since no lookup runs.
 */
export class OutboundPolicy {
  /** Agents for axios (`httpAgent`/`httpsAgent`) whose lookup refuses forbidden addresses. */
  readonly httpAgent: HttpAgent;
  readonly httpsAgent: HttpsAgent;

  constructor(
    readonly allowLoopback: boolean,
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.httpAgent = new HttpAgent({ lookup: this.guardedLookup('http:') });
    this.httpsAgent = new HttpsAgent({ lookup: this.guardedLookup('https:') });
  }

  /** Why an address may not be called with this protocol, or null when it may. */
  private addressRefusal(address: string, protocol: string): string | null {
    const kind = addressKind(address);
    if (kind === 'forbidden') return `${address} is a private, reserved or metadata address`;
    if (kind === 'loopback') {
      return this.allowLoopback
        ? null
        : `${address} is a loopback address (allowed only with DEVDATA_ALLOW_LOOPBACK_WEBHOOKS in development)`;
    }
    return protocol === 'https:' ? null : 'must use https';
  }

  /**
   * The checks that need no DNS: a parseable http(s) URL, and when its host is an IP address, an allowed one.
   * Returns why the URL is refused, or null.
   */
  preflight(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'is not a valid URL';
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use https';
    // http is only ever allowed to loopback, which needs the allowance.
    if (parsed.protocol === 'http:' && !this.allowLoopback) return 'must use https';
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? this.addressRefusal(host, parsed.protocol) : null;
  }

  /** The registration check: the preflight, then every address the host name resolves to. */
  async refusal(url: string): Promise<string | null> {
    const early = this.preflight(url);
    if (early) return early;
    const { hostname, protocol } = new URL(url);
    if (isIP(hostname.replace(/^\[|\]$/g, ''))) return null;
    let addresses: { address: string }[];
    try {
      addresses = await this.resolve(hostname);
    } catch {
      return `host ${hostname} does not resolve`;
    }
    if (addresses.length === 0) return `host ${hostname} does not resolve`;
    for (const { address } of addresses) {
      const refused = this.addressRefusal(address, protocol);
      if (refused)
        return `host ${hostname} resolves to ${refused === 'must use https' ? 'a public address: ' : ''}${refused}`;
    }
    return null;
  }

  /** Throws OutboundRefused when the preflight refuses `url`; the agents vet resolved names. */
  assertCallable(url: string): void {
    const refused = this.preflight(url);
    if (refused) throw new OutboundRefused(`Refused by the outbound policy: ${url} ${refused}`);
  }

  /** Options for every axios call the server makes to a URL it was given: vetted agents, no proxy, no redirects. */
  axiosOptions() {
    return { httpAgent: this.httpAgent, httpsAgent: this.httpsAgent, proxy: false as const, maxRedirects: 0 };
  }

  /** A socket lookup that resolves with `resolve` and fails, before connecting, on any refused address. */
  private guardedLookup(protocol: string): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (resolved) => {
          const addresses = resolved.filter((a) => !options.family || a.family === options.family);
          for (const { address } of addresses) {
            const refused = this.addressRefusal(address, protocol);
            if (refused) {
              return callback(
                new OutboundRefused(
                  `Refused by the outbound policy: host ${hostname} resolves to ${refused}`,
                ),
                '',
              );
            }
          }
          if (addresses.length === 0) {
            return callback(
              Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }),
              '',
            );
          }
          if (options.all) return callback(null, addresses);
          callback(null, addresses[0].address, addresses[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
    };
  }
}
