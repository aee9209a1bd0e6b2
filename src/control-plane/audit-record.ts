/**
 * Appends to a tenant's audit log (read back by the `auditLog` query, graphql/audit.ts). Apart from
 * the GraphQL modules so that the REST routes that record (provisioning, organisations) do not
 * load graphql: a standalone loads it with its first GraphQL request.
 */
import { randomBytes } from 'node:crypto';
import type { AuditEntry } from '../stores/types.ts';
import type { ControlPlaneServices } from './graphql/context.ts';

let sequence = 0;

/** Time-ordered unique ids: milliseconds, a per-process sequence, and randomness. */
function auditId(now: number): string {
  sequence = (sequence + 1) % 0x1000000;
  return `${now.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(5, '0')}${randomBytes(4).toString('hex')}`;
}

/**
 * Appends one entry to a tenant's audit log; a failure to write is logged, never thrown (the
 * action it records has happened).
 */
export function recordAudit(
  services: ControlPlaneServices,
  tenantId: string,
  entry: {
    actor: string;
    operation: string;
    target: string;
    outcome: AuditEntry['outcome'];
    message?: string;
  },
): Promise<void> {
  const now = Date.now();
  return services.runtime
    .appendAudit(tenantId, {
      id: auditId(now),
      at: new Date(now).toISOString(),
      ...entry,
    })
    .catch((error: unknown) =>
      services.log.error({ err: error, operation: entry.operation }, 'writing the audit log failed'),
    );
}
