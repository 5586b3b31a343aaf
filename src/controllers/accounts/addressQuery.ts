// The query parameters of /accounts/{accountId}/convert and /accounts/compare, read as
// sidecar reads them (its messages, its defaults), and bounded before any address is read.
import { badRequest } from '../../errors';
import type { RouteRequest } from '../../http/routes';
import { SCHEMES, type Scheme } from '../../services/accounts/convert';
import { MAX_COMPARED_ADDRESSES } from './routes';

/** Substrate's generic prefix, sidecar's default. */
const DEFAULT_PREFIX = 42;

/** An empty or absent value is the default, as sidecar reads it. */
export function parseScheme(raw: unknown): Scheme {
  if (raw === undefined || raw === '') return 'sr25519';
  const scheme = SCHEMES.find((name) => name === raw);
  if (!scheme) throw badRequest('The `scheme` query parameter provided can be one of the following three values : [ed25519, sr25519, ecdsa]');
  return scheme;
}

/** JavaScript's Number, as sidecar's (`1e1` is 10, `0x2a` is 42); given twice, not a number. */
export function parsePrefix(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_PREFIX;
  const prefix = typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (!Number.isInteger(prefix) || prefix < 0) throw badRequest('The `prefix` query parameter provided is not a number.');
  // -0 is a valid reading of "-0"; its network is prefix 0's.
  return prefix === 0 ? 0 : prefix;
}

/** The names the addresses may come under: qs (sidecar's parser) reads `addresses[]` as `addresses`. */
const ADDRESS_KEYS = ['addresses', 'addresses[]'];

const asList = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * The addresses of a comparison: one value is split at commas, a repeated parameter is
 * taken as given (sidecar does the same). Counted before any is read.
 */
export function readComparedAddresses(query: RouteRequest['query']): string[] {
  const keys = Object.keys(query);
  if (keys.length === 0 || keys.some((key) => !ADDRESS_KEYS.includes(key))) {
    throw badRequest("Please use the query parameter key 'addresses' to provide the addresses values.");
  }
  const [plain, bracketed] = ADDRESS_KEYS.map((key) => query[key]);
  const addresses =
    bracketed === undefined && typeof plain === 'string' ? plain.split(',', MAX_COMPARED_ADDRESSES + 1) : [...asList(plain), ...asList(bracketed)];
  if (addresses.length <= 1) throw badRequest('At least two addresses are required for comparison.');
  if (addresses.length > MAX_COMPARED_ADDRESSES) throw badRequest(`Please limit the amount of address parameters to ${MAX_COMPARED_ADDRESSES}.`);
  return addresses.map(String);
}
