/**
 * Settings of the control plane's tenancy endpoints: organisation creation, provisioning, their
 * abuse limits, and the balances new tenants start with. Part of Settings (settings.ts).
 */

/** A request-rate limit: at most `count` requests per `windowSeconds`, per client (IP or key). */
export interface RateLimitSetting {
  count: number;
  windowSeconds: number;
}

export interface TenancySettings {
  /** Whether `POST /auth/org/create` is served (AUTH_ORG_CREATE, default on). */
  orgCreateEnabled: boolean;
  /**
   * Prepaid balance (USD micros) an organisation created anonymously starts with
   * (ORG_INITIAL_BALANCE_MICROS, default 0: platform-key traffic waits for a top-up; its own
   * Connections work at once).
   */
  orgInitialBalanceMicros: number;
  /**
   * Prepaid balance a provisioned child tenant starts with (PROVISION_INITIAL_BALANCE_MICROS);
   * undefined (the default): no balance record, so the child is postpaid and its liable parent
   * answers for its spend.
   */
  provisionInitialBalanceMicros: number | undefined;
  /**
   * Where a provisioned tenant's balance is topped up (PROVISION_TOP_UP_URL): `{tenantId}` is
   * replaced, and `{origin}` by the control plane's own origin as the caller reached it.
   */
  topUpUrlTemplate: string;
  /** ORG_CREATE_RATE_PER_IP, default 10/h. */
  orgCreatePerIp: RateLimitSetting;
  /** PROVISION_RATE_PER_KEY, default 60/m. */
  provisionPerKey: RateLimitSetting;
  /** PROVISION_RATE_PER_IP, default 120/m. */
  provisionPerIp: RateLimitSetting;
  /** Largest body of the two REST endpoints (CONTROL_REST_BODY_LIMIT_BYTES, default 16 KiB). */
  restBodyLimitBytes: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client's address (CONTROL_TRUST_PROXY):
   * false (default: the socket's address), true (any), a hop count, or addresses/CIDRs.
   */
  trustProxy: boolean | number | string;
}

type Env = Readonly<Record<string, string | undefined>>;
type Fail = (message: string) => never;

const WINDOW_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `<count>/<s|m|h|d>`, e.g. `10/h`; `off` is no limit at all. */
export function parseRateLimit(raw: string, name: string, fail: Fail): RateLimitSetting {
  if (raw.toLowerCase() === 'off') return { count: Number.MAX_SAFE_INTEGER, windowSeconds: 1 };
  const match = /^(\d{1,9})\s*\/\s*(\d{0,5})\s*([smhd])$/.exec(raw);
  const count = Number(match?.[1]);
  const multiple = match?.[2] ? Number(match[2]) : 1;
  if (!match || count < 1 || multiple < 1) {
    return fail(`${name} must be '<count>/<s|m|h|d>' (e.g. 10/h, 100/5m) or off, got '${raw}'`);
  }
  return { count, windowSeconds: multiple * (WINDOW_SECONDS[match[3] as string] as number) };
}

function readOptionalMicros(env: Env, name: string, fail: Fail): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    return fail(`${name} must be a whole number of USD micros, got '${raw}'`);
  }
  return value;
}

function readTrustProxy(raw: string | undefined, fail: Fail): boolean | number | string {
  const value = raw?.trim();
  if (!value || ['off', 'false', '0', 'no'].includes(value.toLowerCase())) return false;
  if (['on', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(value)) {
    return fail(`CONTROL_TRUST_PROXY must be on, off, a hop count or addresses/CIDRs, got '${value}'`);
  }
  return value;
}

export function readTenancySettings(
  env: Env,
  fail: Fail,
  readBool: (name: string, fallback: boolean) => boolean,
  readInt: (name: string, fallback: number, min: number, max: number) => number,
): TenancySettings {
  const topUpUrlTemplate = env.PROVISION_TOP_UP_URL?.trim() || '{origin}/billing/top-up/{tenantId}';
  if (!topUpUrlTemplate.includes('{tenantId}')) {
    fail(`PROVISION_TOP_UP_URL must contain {tenantId}, got '${topUpUrlTemplate}'`);
  }
  const rate = (name: string, fallback: string) => parseRateLimit(env[name]?.trim() || fallback, name, fail);
  return Object.freeze({
    orgCreateEnabled: readBool('AUTH_ORG_CREATE', true),
    orgInitialBalanceMicros: readOptionalMicros(env, 'ORG_INITIAL_BALANCE_MICROS', fail) ?? 0,
    provisionInitialBalanceMicros: readOptionalMicros(env, 'PROVISION_INITIAL_BALANCE_MICROS', fail),
    topUpUrlTemplate,
    orgCreatePerIp: rate('ORG_CREATE_RATE_PER_IP', '10/h'),
    provisionPerKey: rate('PROVISION_RATE_PER_KEY', '60/m'),
    provisionPerIp: rate('PROVISION_RATE_PER_IP', '120/m'),
    restBodyLimitBytes: readInt('CONTROL_REST_BODY_LIMIT_BYTES', 16 * 1024, 256, 1024 * 1024),
    trustProxy: readTrustProxy(env.CONTROL_TRUST_PROXY, fail),
  });
}
