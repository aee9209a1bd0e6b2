/** Small, valid config records for store and view tests. */
import {
  type ApiKeyRecord,
  type CachePolicyRecord,
  type ConnectionRecord,
  cachePolicyId,
  type ModelRouteRecord,
  modelRouteId,
  type PatRecord,
  type ProvisioningKeyRecord,
  type TenantRecord,
} from '../../src/stores/records.ts';
import type { ConfigChange, ConfigStore, Unsubscribe } from '../../src/stores/types.ts';

const CREATED_AT = '2025-01-01T00:00:00.000Z';

export function makeTenant(id: string, overrides: Partial<TenantRecord> = {}): TenantRecord {
  return {
    v: 1,
    id,
    displayName: `Tenant ${id}`,
    billingMode: 'delegated',
    strictByok: false,
    workspaces: [{ id: 'ws-default', name: 'Default' }],
    ...overrides,
  };
}

export function makeApiKey(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    v: 1,
    id,
    hash: `hash-of-${id}`,
    tenantId: 't1',
    workspaceId: 'ws-default',
    grants: ['chat:write'],
    createdAt: CREATED_AT,
    ...overrides,
  };
}

export function makePat(id: string, overrides: Partial<PatRecord> = {}): PatRecord {
  return {
    v: 1,
    id,
    hash: `hash-of-${id}`,
    tenantId: 't1',
    permissions: ['keys:write'],
    admin: false,
    createdAt: CREATED_AT,
    ...overrides,
  };
}

export function makeProvisioningKey(
  id: string,
  overrides: Partial<ProvisioningKeyRecord> = {},
): ProvisioningKeyRecord {
  return { v: 1, id, hash: `hash-of-${id}`, tenantId: 't1', createdAt: CREATED_AT, ...overrides };
}

export function makePolicy(
  tenantId: string,
  workspaceId: string | undefined,
  name: string,
  overrides: Partial<CachePolicyRecord> = {},
): { id: string; record: CachePolicyRecord } {
  const record: CachePolicyRecord = {
    v: 1,
    tenantId,
    name,
    ttlSeconds: 60,
    swrSeconds: 0,
    maxTtlSeconds: 3600,
    defaultTags: [],
    semantic: false,
    ...overrides,
  };
  if (workspaceId !== undefined) record.workspaceId = workspaceId;
  return { id: cachePolicyId(tenantId, workspaceId, name), record };
}

export function makeModelRoute(
  tenantId: string,
  workspaceId: string | undefined,
  model: string,
  overrides: Partial<ModelRouteRecord> = {},
): { id: string; record: ModelRouteRecord } {
  const record: ModelRouteRecord = {
    v: 1,
    tenantId,
    model,
    strategy: 'weighted',
    targets: [{ model: 'openai/gpt-4o-mini', weight: 1, priority: 0 }],
    retry: {
      maxAttempts: 3,
      on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
      backoffMs: 100,
      maxBackoffMs: 2000,
    },
    firstByteTimeoutMs: 30000,
    circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
    shared: false,
    ...overrides,
  };
  if (workspaceId !== undefined) record.workspaceId = workspaceId;
  return { id: modelRouteId(tenantId, workspaceId, model), record };
}

export function makeConnection(id: string, overrides: Partial<ConnectionRecord> = {}): ConnectionRecord {
  return {
    v: 1,
    id,
    tenantId: 't1',
    slug: id,
    provider: 'openai',
    keyHint: 'sk-…abcd',
    sealedSecret: 'sealed',
    secretDigest: 'digest',
    ...overrides,
  };
}

export interface ChangeRecorder {
  readonly changes: ConfigChange[];
  /** Resolves with the first change (already seen or to come) that matches; rejects after 5 s. */
  waitFor(predicate: (change: ConfigChange) => boolean): Promise<ConfigChange>;
  stop: Unsubscribe;
}

/** Watches a store and lets a test await a change instead of sleeping. */
export async function recordChanges(store: ConfigStore): Promise<ChangeRecorder> {
  const changes: ConfigChange[] = [];
  const waiters = new Set<() => void>();
  const stop = await store.watch((change) => {
    changes.push(change);
    for (const waiter of waiters) waiter();
  });
  return {
    changes,
    stop,
    waitFor(predicate) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = changes.find(predicate);
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching change within 5 s; saw ${JSON.stringify(changes)}`));
        }, 5000);
        waiters.add(check);
        check();
      });
    },
  };
}

export function isChange(op: ConfigChange['op'], kind?: string, id?: string) {
  return (change: ConfigChange) =>
    change.op === op && (change.op === 'reset' || (change.kind === kind && change.id === id));
}
