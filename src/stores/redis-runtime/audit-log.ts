/**
 * The Redis runtime store's audit log: one lex-ordered sorted set per tenant, every member
 * `<id>\0<JSON entry>` at score 0, so that members sort by id and a page is one ZREVRANGEBYLEX.
 */
import { assertAuditEntry, assertAuditQuery, toAuditEntry } from '../runtime-records.ts';
import type { AuditEntry, RuntimeAuditLog } from '../types.ts';
import { checkTransaction, type RedisRuntimeConnection } from './connection.ts';

/** Between an audit member's id and its JSON: below every character an id may hold. */
const AUDIT_SEPARATOR = '\u0000';

export class RedisAuditLog implements RuntimeAuditLog {
  readonly #connection: RedisRuntimeConnection;
  readonly #limit: number;

  /** `limit`: entries kept per tenant, already checked. */
  constructor(connection: RedisRuntimeConnection, limit: number) {
    this.#connection = connection;
    this.#limit = limit;
  }

  /** ZADD and a trim to the newest `limit` members by id, in one transaction. */
  async appendAudit(tenantId: string, entry: AuditEntry): Promise<void> {
    assertAuditEntry(tenantId, entry);
    const { client, keys } = this.#connection;
    const key = keys.audit(tenantId);
    const member = `${entry.id}${AUDIT_SEPARATOR}${JSON.stringify(toAuditEntry(entry))}`;
    checkTransaction(
      await client
        .multi()
        .zadd(key, 0, member)
        .zremrangebyrank(key, 0, -(this.#limit + 1))
        .exec(),
    );
  }

  /** ZREVRANGEBYLEX from just below `before` (members `<id>\0...` sort by id): O(log n + limit). */
  async listAudit(tenantId: string, limit: number, before?: string): Promise<AuditEntry[]> {
    assertAuditQuery(tenantId, limit, before);
    if (limit === 0) return [];
    const { client, keys, onError } = this.#connection;
    const members = await client.zrevrangebylex(
      keys.audit(tenantId),
      before === undefined ? '+' : `(${before}`,
      '-',
      'LIMIT',
      0,
      limit,
    );
    const entries: AuditEntry[] = [];
    for (const member of members) {
      const separator = member.indexOf(AUDIT_SEPARATOR);
      let entry: AuditEntry | undefined;
      try {
        entry = separator < 0 ? undefined : toAuditEntry(JSON.parse(member.slice(separator + 1)));
      } catch {
        entry = undefined;
      }
      if (entry === undefined) onError(new Error(`skipped a malformed audit entry of '${tenantId}'`));
      else entries.push(entry);
    }
    return entries;
  }
}
