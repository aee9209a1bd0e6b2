/**
 * Checks and parsing shared by the runtime stores for tokens, revocations and the audit log, so
 * that memory and Redis refuse the same inputs and read back the same shapes.
 */
import type { AuditEntry, RevocationEvent, TokenRecord } from './types.ts';

function assertId(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
}

function assertMs(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new TypeError(`${name} must be a safe integer (ms), got ${value}`);
  }
}

export function assertTokenRecord(record: TokenRecord): void {
  assertId('jti', record.jti);
  assertId('tenantId', record.tenantId);
  assertId('workspaceId', record.workspaceId);
  assertId('parentKeyId', record.parentKeyId);
  assertMs('issuedAtMs', record.issuedAtMs);
  assertMs('expiresAtMs', record.expiresAtMs);
}

export function assertTokenRevocation(jti: string, expiresAtMs: number): void {
  assertId('jti', jti);
  assertMs('expiresAtMs', expiresAtMs);
}

export function assertKeyRevocation(keyId: string, atMs: number): void {
  assertId('keyId', keyId);
  assertMs('atMs', atMs);
}

export function assertAuditEntry(tenantId: string, entry: AuditEntry): void {
  assertId('tenantId', tenantId);
  assertId('entry.id', entry.id);
  // The Redis log orders members `<id>\0<json>` by bytes; an id holding NUL would break that order.
  if (entry.id.includes('\u0000')) throw new TypeError('entry.id must not contain NUL');
  for (const field of ['at', 'actor', 'operation', 'target'] as const) {
    if (typeof entry[field] !== 'string') throw new TypeError(`entry.${field} must be a string`);
  }
  if (entry.outcome !== 'success' && entry.outcome !== 'failure') {
    throw new TypeError(`entry.outcome must be 'success' or 'failure', got ${entry.outcome}`);
  }
}

export function assertAuditQuery(tenantId: string, limit: number, before: string | undefined): void {
  assertId('tenantId', tenantId);
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`limit must be a non-negative integer, got ${limit}`);
  }
  if (before !== undefined && typeof before !== 'string') throw new TypeError('before must be a string');
}

export function assertAuditLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`auditLimit must be a positive integer, got ${limit}`);
  }
}

/** Orders ids as Redis orders members (bytewise UTF-8), which for ASCII ids is plain `<`. */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);
const isId = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The record if `value` is a well-formed TokenRecord (only its fields kept), else undefined. */
export function toTokenRecord(value: unknown): TokenRecord | undefined {
  if (!isRecord(value)) return undefined;
  const { jti, tenantId, workspaceId, parentKeyId, issuedAtMs, expiresAtMs } = value;
  if (!isId(jti) || !isId(tenantId) || !isId(workspaceId) || !isId(parentKeyId)) return undefined;
  if (!isMs(issuedAtMs) || !isMs(expiresAtMs)) return undefined;
  return { jti, tenantId, workspaceId, parentKeyId, issuedAtMs, expiresAtMs };
}

/** The entry if `value` is a well-formed AuditEntry (only its fields kept), else undefined. */
export function toAuditEntry(value: unknown): AuditEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { id, at, actor, operation, target, outcome, message } = value;
  if (!isId(id) || typeof at !== 'string' || typeof actor !== 'string') return undefined;
  if (typeof operation !== 'string' || typeof target !== 'string') return undefined;
  if (outcome !== 'success' && outcome !== 'failure') return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  return { id, at, actor, operation, target, outcome, ...(message === undefined ? {} : { message }) };
}

/** A revocation feed message (JSON `{type:'token',jti,expiresAtMs}` or `{type:'key',keyId,atMs}`). */
export function parseRevocationMessage(message: string): RevocationEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  if (value.type === 'token' && isId(value.jti) && isMs(value.expiresAtMs)) {
    return { type: 'token', jti: value.jti, expiresAtMs: value.expiresAtMs };
  }
  if (value.type === 'key' && isId(value.keyId) && isMs(value.atMs)) {
    return { type: 'key', keyId: value.keyId, atMs: value.atMs };
  }
  return undefined;
}
