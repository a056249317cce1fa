import { isIP } from 'node:net';
import { BotError } from '../core/errors.js';

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: `false` (no proxy is trusted: the client is the connection's
 * address), `true` (the left-most X-Forwarded-For entry, whoever sent it), a hop count (the entry that many hops
 * from this server), or the addresses/CIDRs of the proxies whose X-Forwarded-For is believed.
 */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, accepted beside addresses and CIDRs. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Unset, `false`, `off` or `0`: off. `true`, a whole number of hops, or comma-separated addresses/CIDRs. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  const lower = text.toLowerCase();
  if (text === '' || lower === 'false' || lower === 'off' || text === '0') return false;
  if (lower === 'true') return true;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (!Number.isSafeInteger(hops)) throw invalid(text, 'a hop count must be a whole number');
    return hops;
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined || entries.length === 0) throw invalid(text, `${JSON.stringify(bad ?? text)} is not an IP address, a CIDR (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`);
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0;
  const version = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  if (version === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (version === 4 ? 32 : 128);
}

function invalid(value: string, reason: string): BotError {
  return new BotError('config', `TRUST_PROXY: off, true, a hop count, or comma-separated addresses/CIDRs of the trusted proxies; ${reason} (got ${JSON.stringify(value)})`);
}
