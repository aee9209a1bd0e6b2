/**
 * Typed cache controls (specification 4.3), validated before anything is sent and rendered as the
 * gateway's `x-service-cache*` request headers.
 */
import { GatewayValidationError } from './errors.ts';

/** The gateway's cache request headers. */
export const CACHE_REQUEST_HEADERS = {
  mode: 'x-service-cache',
  namespace: 'x-service-cache-namespace',
  ttl: 'x-service-cache-ttl',
  force: 'x-service-cache-force',
  threshold: 'x-service-cache-threshold',
  policy: 'x-service-cache-policy',
  tags: 'x-service-cache-tags',
} as const;

/**
 * How a request uses the response cache:
 * - `off`: bypass the cache entirely (no cache header on the answer);
 * - `no-store`: serve a hit, never write;
 * - `force-refresh`: skip the read, go upstream and overwrite the entry;
 * - `semantic`: also serve the answer to a similar question (and cache at temperature > 0).
 *
 * Without it the gateway's default applies (exact matching, cacheable at temperature 0 or unset).
 */
export type CacheMode = 'off' | 'no-store' | 'force-refresh' | 'semantic';

/** Cache controls, for a whole client or one call (a call's fields win over the client's). */
export interface CacheOptions {
  /** The cache mode; the gateway's default when absent. */
  cache?: CacheMode;
  /** A sub-partition of the workspace's cache: entries are only served under the same namespace (1 to 256 printable ASCII characters). */
  namespace?: string;
  /** How long the entry written stays fresh, in whole seconds, 1 to 86400; capped by the policy's `maxTtlSeconds`. */
  ttlSeconds?: number;
  /** Dependency tags of the entry written, for `revalidateCacheTags`: at most 16, each a tag of specification 2.4. */
  tags?: readonly string[];
  /** The name of a cache policy of the workspace or tenant (an unknown name is a 400 from the gateway). */
  policy?: string;
  /** Semantic mode: the similarity a cached question needs, 0 to 1 (the gateway's default is 0.8). */
  threshold?: number;
  /** Cache a request with temperature > 0 in exact mode (`x-service-cache-force: 1`; `false` sends `0`). */
  force?: boolean;
}

/** Tags per request (specification 8). */
export const MAX_CACHE_TAGS = 16;
/** The longest TTL a request may ask for, in seconds. */
export const MAX_CACHE_TTL_SECONDS = 86_400;
/** The longest namespace the gateway accepts. */
export const MAX_NAMESPACE_LENGTH = 256;
/**
 * A dependency tag (specification 2.4): lowercase letters, digits, `.`, `_`, `-` and `:`, starting
 * with a letter or digit; at most 128 characters, the gateway's limit.
 */
export const CACHE_TAG_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,127}$/;

const MODES: ReadonlySet<string> = new Set<CacheMode>(['off', 'no-store', 'force-refresh', 'semantic']);
/** Header values are sent as they are: printable ASCII, no surrounding spaces (the gateway trims). */
const HEADER_TEXT = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const MAX_POLICY_LENGTH = 253;
const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'cache',
  'namespace',
  'ttlSeconds',
  'tags',
  'policy',
  'threshold',
  'force',
]);

function fail(option: string, message: string): never {
  throw new GatewayValidationError(option, message);
}

function checkTags(tags: unknown, path: string): void {
  if (!Array.isArray(tags)) fail(`${path}.tags`, 'must be an array of tags');
  if (tags.length > MAX_CACHE_TAGS)
    fail(`${path}.tags`, `at most ${MAX_CACHE_TAGS} tags per request, got ${tags.length}`);
  tags.forEach((tag: unknown, index) => {
    if (typeof tag !== 'string' || !CACHE_TAG_PATTERN.test(tag)) {
      fail(
        `${path}.tags[${index}]`,
        `${JSON.stringify(tag)} is not a tag: lowercase letters, digits, '.', '_', '-' or ':', starting with a letter or digit, at most 128 characters`,
      );
    }
  });
}

/**
 * Checks cache options against the gateway's rules and throws a {@link GatewayValidationError}
 * naming the first option at fault. `path` prefixes the option names in messages.
 */
export function validateCacheOptions(options: CacheOptions, path = 'cache'): void {
  if (typeof options !== 'object' || options === null) fail(path, 'must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) fail(`${path}.${key}`, 'is not a cache option');
  }
  const { cache, namespace, ttlSeconds, tags, policy, threshold, force } = options;
  if (cache !== undefined && !MODES.has(cache))
    fail(`${path}.cache`, `must be one of ${[...MODES].join(', ')}, got ${JSON.stringify(cache)}`);
  if (namespace !== undefined) {
    if (
      typeof namespace !== 'string' ||
      !HEADER_TEXT.test(namespace) ||
      namespace.length > MAX_NAMESPACE_LENGTH
    )
      fail(
        `${path}.namespace`,
        `must be 1 to ${MAX_NAMESPACE_LENGTH} printable ASCII characters, without surrounding spaces`,
      );
  }
  if (ttlSeconds !== undefined) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_CACHE_TTL_SECONDS)
      fail(`${path}.ttlSeconds`, `must be a whole number of seconds from 1 to ${MAX_CACHE_TTL_SECONDS}`);
  }
  if (tags !== undefined) checkTags(tags, path);
  if (policy !== undefined) {
    if (typeof policy !== 'string' || !HEADER_TEXT.test(policy) || policy.length > MAX_POLICY_LENGTH)
      fail(`${path}.policy`, `must be a policy name of 1 to ${MAX_POLICY_LENGTH} printable ASCII characters`);
  }
  if (threshold !== undefined) {
    if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1)
      fail(`${path}.threshold`, 'must be a number from 0 to 1');
  }
  if (force !== undefined && typeof force !== 'boolean') fail(`${path}.force`, 'must be a boolean');
}

/**
 * Validates cache options and renders them as the gateway's request headers. Give the result to
 * an official client as a call's `headers` option:
 *
 * ```ts
 * await openai.chat.completions.create(body, { headers: cacheHeaders({ cache: 'semantic', threshold: 0.9 }) });
 * ```
 *
 * @throws GatewayValidationError when an option breaks the gateway's rules.
 */
export function cacheHeaders(options: CacheOptions = {}): Record<string, string> {
  validateCacheOptions(options);
  const headers: Record<string, string> = {};
  if (options.cache !== undefined) headers[CACHE_REQUEST_HEADERS.mode] = options.cache;
  if (options.namespace !== undefined) headers[CACHE_REQUEST_HEADERS.namespace] = options.namespace;
  if (options.ttlSeconds !== undefined) headers[CACHE_REQUEST_HEADERS.ttl] = String(options.ttlSeconds);
  // `0` (not absent) so that a call's `force: false` wins over a client's `force: true`.
  if (options.force !== undefined) headers[CACHE_REQUEST_HEADERS.force] = options.force ? '1' : '0';
  if (options.threshold !== undefined) headers[CACHE_REQUEST_HEADERS.threshold] = String(options.threshold);
  if (options.policy !== undefined) headers[CACHE_REQUEST_HEADERS.policy] = options.policy;
  if (options.tags !== undefined && options.tags.length > 0)
    headers[CACHE_REQUEST_HEADERS.tags] = [...new Set(options.tags)].join(',');
  return headers;
}
