/**
 * The cache request headers of the specification, parsed and checked. Malformed values that the
 * specification constrains (TTL, tags) are a 400 naming the rule; an unrecognised
 * `x-service-cache` value is ignored, never an error.
 */
import { InvalidRequestError } from '../errors/gateway-error.ts';

export type CacheMode = 'default' | 'off' | 'no-store' | 'force-refresh' | 'semantic';

export interface CacheDirective {
  mode: CacheMode;
  /** `x-service-cache-namespace`; '' when absent. */
  namespace: string;
  ttlSeconds?: number;
  policyName?: string;
  tags: string[];
  /** `x-service-cache-force: 1`: cache a request with temperature > 0. */
  force: boolean;
  /** `x-service-cache-threshold`: the semantic similarity a match needs, clamped to 0..1. */
  threshold?: number;
}

export const MAX_REQUEST_TAGS = 16;
export const MAX_CACHE_TTL_SECONDS = 86_400;
/** Tag slug (specification 2.4): lowercase letters, digits, `.` `_` `-` `:`, starting with a letter or digit. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,127}$/;
const MAX_NAMESPACE_LENGTH = 256;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : Array.isArray(value) ? value[0]?.trim() : undefined;
}

const MODES: ReadonlySet<string> = new Set(['off', 'no-store', 'force-refresh', 'semantic']);

export function parseTags(raw: string, limit: number, source: string): string[] {
  const tags = raw
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length > limit)
    throw new InvalidRequestError(`${source} allows at most ${limit} tags, got ${tags.length}`);
  for (const tag of tags) {
    if (!TAG_PATTERN.test(tag)) {
      throw new InvalidRequestError(
        `${source}: tag '${tag.slice(0, 64)}' must be lowercase letters, digits, '.', '_', '-' or ':', starting with a letter or digit (at most 128 characters)`,
      );
    }
  }
  return [...new Set(tags)];
}

export function parseCacheDirective(headers: Headers): CacheDirective {
  const modeHeader = header(headers, 'x-service-cache')?.toLowerCase();
  const mode: CacheMode =
    modeHeader !== undefined && MODES.has(modeHeader) ? (modeHeader as CacheMode) : 'default';
  const namespace = header(headers, 'x-service-cache-namespace') ?? '';
  if (namespace.length > MAX_NAMESPACE_LENGTH) {
    throw new InvalidRequestError(
      `x-service-cache-namespace must be at most ${MAX_NAMESPACE_LENGTH} characters`,
    );
  }
  const directive: CacheDirective = {
    mode,
    namespace,
    tags: [],
    force: header(headers, 'x-service-cache-force') === '1',
  };
  const ttl = header(headers, 'x-service-cache-ttl');
  if (ttl !== undefined && ttl !== '') {
    if (!/^\d{1,9}$/.test(ttl) || Number(ttl) < 1) {
      throw new InvalidRequestError(
        `x-service-cache-ttl must be a whole number of seconds, at least 1 (above ${MAX_CACHE_TTL_SECONDS} counts as ${MAX_CACHE_TTL_SECONDS})`,
      );
    }
    // Above the maximum is reduced to it, as a policy's ceiling reduces it further.
    directive.ttlSeconds = Math.min(Number(ttl), MAX_CACHE_TTL_SECONDS);
  }
  const threshold = header(headers, 'x-service-cache-threshold');
  if (threshold !== undefined && threshold !== '') {
    const value = Number(threshold);
    if (!Number.isFinite(value) || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(threshold)) {
      throw new InvalidRequestError('x-service-cache-threshold must be a number (clamped to 0..1)');
    }
    directive.threshold = Math.min(1, Math.max(0, value));
  }
  const policy = header(headers, 'x-service-cache-policy');
  if (policy !== undefined && policy !== '') directive.policyName = policy;
  const tags = header(headers, 'x-service-cache-tags');
  if (tags !== undefined && tags !== '')
    directive.tags = parseTags(tags, MAX_REQUEST_TAGS, 'x-service-cache-tags');
  return directive;
}
