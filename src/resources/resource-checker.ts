/**
 * The message collector the resource validators share (validate.ts, validate-model-route.ts): each
 * check names the field and the rule it breaks, like the CRDs' CEL messages.
 */

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MAX = 63;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_SUBDOMAIN_MAX = 253;
/** Connection slugs, policy names and workspace ids. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export type Fields = Record<string, unknown>;

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects messages; each check is a no-op when the field is absent unless it is required. */
export class Checker {
  readonly messages: string[] = [];

  fail(message: string): void {
    this.messages.push(message);
  }

  present(value: unknown, path: string): boolean {
    if (value === undefined || value === null) {
      this.fail(`${path} is required`);
      return false;
    }
    return true;
  }

  string(value: unknown, path: string, pattern?: RegExp, rule?: string): value is string {
    if (value === undefined) return false;
    if (typeof value !== 'string') {
      this.fail(`${path} must be a string`);
      return false;
    }
    if (pattern && !pattern.test(value)) {
      this.fail(`${path} must ${rule ?? `match ${pattern.source}`}, got '${value}'`);
      return false;
    }
    return true;
  }

  nonEmptyString(value: unknown, path: string): void {
    if (this.string(value, path) && value.trim() === '') this.fail(`${path} must not be empty`);
  }

  dnsLabel(value: unknown, path: string, max = DNS_LABEL_MAX): void {
    if (!this.string(value, path, DNS_LABEL, 'be a DNS-1123 label (lowercase letters, digits and -)')) return;
    if (value.length > max) this.fail(`${path} must be at most ${max} characters`);
  }

  dnsSubdomain(value: unknown, path: string): void {
    const rule = 'be a DNS-1123 subdomain (lowercase letters, digits, - and .)';
    if (!this.string(value, path, DNS_SUBDOMAIN, rule)) return;
    if (value.length > DNS_SUBDOMAIN_MAX)
      this.fail(`${path} must be at most ${DNS_SUBDOMAIN_MAX} characters`);
  }

  slug(value: unknown, path: string): void {
    this.string(value, path, SLUG_PATTERN, `match ${SLUG_PATTERN.source}`);
  }

  boolean(value: unknown, path: string): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail(`${path} must be a boolean`);
  }

  integer(value: unknown, path: string, min: number, max: number): value is number {
    if (value === undefined) return false;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.fail(`${path} must be an integer`);
      return false;
    }
    if (value < min || value > max) {
      this.fail(`${path} must be between ${min} and ${max}, got ${value}`);
      return false;
    }
    return true;
  }

  stringMap(value: unknown, path: string): value is Record<string, unknown> {
    if (value === undefined) return false;
    if (!isObject(value)) {
      this.fail(`${path} must be a map of strings`);
      return false;
    }
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner !== 'string') this.fail(`${path}.${key} must be a string`);
    }
    return true;
  }
}
