// Who a connection belongs to, for limits per client: the peer's address, or
// behind trusted balancers the address the nearest of them wrote into
// X-Forwarded-For (what a client writes there itself is not believed). An
// IPv6 client is its /64, the block one host is usually given.
import { isIP } from 'node:net';

/**
 * The client's address: the peer's, or with `trustedProxies` balancers in front, the
 * entry of X-Forwarded-For that the outermost of them appended (counted from the right).
 */
export function clientKey(peer: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: number): string {
  if (trustedProxies > 0 && forwardedFor !== undefined) {
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    const hop = hops[Math.max(0, hops.length - trustedProxies)];
    if (hop && isIP(stripPort(hop))) return addressKey(stripPort(hop));
  }
  return addressKey(peer ?? 'unknown');
}

/** `1.2.3.4:5678` and `[::1]:5678` as balancers sometimes write them. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1];
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4 ? v4[1] : hop;
}

/** An IPv4 address as it is (also when mapped into IPv6), an IPv6 one as its /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIP(address) !== 6) return address.slice(0, 64);
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}
