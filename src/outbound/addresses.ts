/**
 * Which IP addresses a request from edgeval may go to: public unicast only. Everything a host
 * inside a network can reach but the internet cannot (loopback, private, link-local, ULA, CGNAT,
 * cloud metadata, multicast, reserved, documentation) is refused, in every notation that names
 * it: IPv4-mapped/compatible IPv6, NAT64 and 6to4 carry an IPv4 address that is judged as such.
 * Input is a hostname as WHATWG URL serialises it: IPv4 already dotted-decimal (it turns 127.1,
 * 0x7f000001, 2130706433 and 0177.0.0.1 into 127.0.0.1), IPv6 in brackets and compressed hex.
 */

/** [first address, prefix length, name] of IPv4 ranges that are not public unicast (RFC 6890 and IANA's registry). */
const IPV4_BLOCKED: readonly (readonly [string, number, string])[] = [
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

export type AddressVerdict = { public: true } | { public: false; range: string; loopback: boolean };

const PUBLIC: AddressVerdict = { public: true };
const blocked = (range: string, loopback = false): AddressVerdict => ({ public: false, range, loopback });

/** A dotted-decimal IPv4 address as a 32-bit number, or null. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/** An IPv6 address (no brackets, no zone) as eight 16-bit groups, or null; accepts a dotted IPv4 tail. */
export function parseIPv6(text: string): number[] | null {
  let s = text;
  const lastColon = s.lastIndexOf(":");
  if (lastColon >= 0 && s.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0] ?? "");
  const rest = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const fill = 8 - head.length - rest.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  return [
    ...head.map((g) => parseInt(g, 16)),
    ...Array<number>(halves.length === 2 ? fill : 0).fill(0),
    ...rest.map((g) => parseInt(g, 16)),
  ];
}

export function classifyIPv4(n: number): AddressVerdict {
  if (n === 0xffffffff) return blocked("broadcast");
  for (const [base, bits, range] of IPV4_BLOCKED) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === parseIPv4(base)) return blocked(range, range === "loopback");
  }
  return PUBLIC;
}

export function classifyIPv6(w: readonly number[]): AddressVerdict {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = w;
  const v4 = (hi: number, lo: number) => ((hi << 16) >>> 0) + lo;
  const zeroTo = (k: number) => w.slice(0, k).every((x) => x === 0);
  if (zeroTo(7) && h === 1) return blocked("IPv6 loopback", true);
  if (zeroTo(8)) return blocked("IPv6 unspecified");
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated): the IPv4 address decides.
  if (zeroTo(5) && f === 0xffff) return embedded(classifyIPv4(v4(g, h)), "IPv4-mapped");
  if (zeroTo(6)) return embedded(classifyIPv4(v4(g, h)), "IPv4-compatible");
  if (zeroTo(4) && e === 0xffff && f === 0) return embedded(classifyIPv4(v4(g, h)), "IPv4-translated");
  // 64:ff9b::/96 (NAT64) carries an IPv4 address; 64:ff9b:1::/48 is for local NAT64 only.
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return embedded(classifyIPv4(v4(g, h)), "NAT64");
  if (a === 0x64 && b === 0xff9b && c === 1) return blocked("local-use NAT64");
  // 2002::/16 (6to4) carries an IPv4 address in its next 32 bits.
  if (a === 0x2002) return embedded(classifyIPv4(v4(b, c)), "6to4");
  if (a === 0x2001 && b === 0) return blocked("Teredo");
  if (a === 0x2001 && b === 0xdb8) return blocked("IPv6 documentation");
  if (a === 0x2001 && b < 0x200) return blocked("IETF protocol assignments");
  if ((a & 0xfe00) === 0xfc00) return blocked("unique local (ULA)");
  if ((a & 0xffc0) === 0xfe80) return blocked("IPv6 link-local");
  if ((a & 0xffc0) === 0xfec0) return blocked("IPv6 site-local");
  if ((a & 0xff00) === 0xff00) return blocked("IPv6 multicast");
  // Only 2000::/3 is global unicast; the rest (100::/64 discard, ::/8 …) is reserved.
  if ((a & 0xe000) !== 0x2000) return blocked("reserved IPv6");
  return PUBLIC;
}

function embedded(inner: AddressVerdict, form: string): AddressVerdict {
  return inner.public ? PUBLIC : blocked(`${inner.range} (as ${form} IPv6)`, inner.loopback);
}

/** Null when the hostname is a DNS name (its resolution is the edge's business); else its verdict. */
export function classifyHost(hostname: string): AddressVerdict | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) {
    const words = parseIPv6(hostname.slice(1, -1).split("%")[0] ?? "");
    return words ? classifyIPv6(words) : blocked("unreadable IPv6");
  }
  const v4 = parseIPv4(hostname);
  return v4 === null ? null : classifyIPv4(v4);
}
