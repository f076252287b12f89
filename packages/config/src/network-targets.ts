// What SVC_ALERT_ALLOW_PRIVATE_TARGETS allows: an address outside the public
// unicast space (loopback, RFC 1918 private, link-local such as the cloud
// metadata address 169.254.169.254, unique-local, multicast, unspecified,
// carrier-grade NAT, documentation and other reserved ranges, IPv6 forms that
// embed an IPv4 address). Off, alert channels may send only to public
// addresses, so an editor cannot make the service reach its own network.
// The ranges are ipaddr.js's (the IANA special-purpose registries).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const KINDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
};

/**
 * The kind of a non-public IP address ("loopback", "private", "link-local",
 * ...), or null for a public unicast one. An IPv4-mapped IPv6 address is
 * judged by its IPv4 address. Throws when `address` is not an IP address.
 */
export function nonPublicAddressKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isIP(bare.replace(/%.*$/, ''))) throw new Error(`${JSON.stringify(address)} is not an IP address`);
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === 'unicast') return null;
  return KINDS[range] ?? `reserved (${range})`;
}

/** The host of a URL as written (brackets of an IPv6 literal removed, lower case). */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Why a URL's host is refused before any lookup, or null: a literal
 * non-public address, or `localhost` (and names under `.localhost`, which
 * resolvers answer with loopback). Other names are judged where they are
 * resolved, at the moment of connecting.
 */
export function literalTargetProblem(url: URL): string | null {
  const host = urlHost(url);
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.') return `host ${host} is loopback`;
  if (!isIP(host)) return null;
  const kind = nonPublicAddressKind(host);
  return kind ? `address ${host} is ${kind}` : null;
}

/**
 * The hosts and address ranges an operator lets a guarded request reach
 * although they are not public (SVC_HTTP_TASK_ALLOWED_HOSTS): host names as
 * a URL writes them (lower case, exact: `db.internal` allows only that name),
 * and IP addresses or CIDR ranges (`127.0.0.1`, `10.1.0.0/16`, `::1/128`).
 */
export interface TargetAllowlist {
  hosts: string[];
  ranges: string[];
}

/** Parses a comma-separated list of host names, IP addresses and CIDR ranges. Throws naming every bad entry. */
export function parseTargetAllowlist(text: string): TargetAllowlist {
  const out: TargetAllowlist = { hosts: [], ranges: [] };
  const problems: string[] = [];
  for (const item of text.split(',').map((s) => s.trim().toLowerCase())) {
    if (item === '') {
      problems.push('has an empty entry');
      continue;
    }
    const bare = item.replace(/^\[|\]$/g, '');
    if (isIP(bare)) out.ranges.push(bare.includes(':') ? `${bare}/128` : `${bare}/32`);
    else if (item.includes('/')) {
      try {
        ipaddr.parseCIDR(item);
        out.ranges.push(item);
      } catch {
        problems.push(`"${item}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`);
      }
    } else if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(item) && item.length <= 253) out.hosts.push(item.replace(/\.$/, ''));
    else problems.push(`"${item}" is not a host name, an IP address or a CIDR range`);
  }
  if (problems.length) throw new Error([...new Set(problems)].join('; '));
  return out;
}

/** True when `address` (an IP address) lies in one of the list's ranges. An IPv4-mapped IPv6 address is judged by its IPv4 address. */
export function addressListed(list: TargetAllowlist, address: string): boolean {
  let ip = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return list.ranges.some((r) => {
    const [net, bits] = ipaddr.parseCIDR(r);
    return net.kind() === ip.kind() && ip.match([net, bits] as never);
  });
}

/** True when the host name (as urlHost gives it) is listed. */
export function hostListed(list: TargetAllowlist, host: string): boolean {
  return list.hosts.includes(host.replace(/\.$/, ''));
}
