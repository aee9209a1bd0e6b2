/**
 * The records of a config view (config-view.ts) and the secondary indexes the request path looks
 * them up by: credentials by hash, connections by tenant and slug, cache policies by tenant,
 * workspace and name. Synchronous Map gets; the indexes change only when a record is applied.
 */
import { createEmptySnapshot } from './memory-config-store.ts';
import type {
  ApiKeyRecord,
  CachePolicyRecord,
  ConfigKind,
  ConfigRecordMap,
  ConnectionRecord,
  ModelRouteRecord,
  PatRecord,
  ProvisioningKeyRecord,
  TenantRecord,
} from './records.ts';
import type { ConfigSnapshot } from './types.ts';

export type ConfigRecord = ConfigRecordMap[ConfigKind];

interface ConnectionGroup {
  readonly byId: Map<string, ConnectionRecord>;
  bySlug: Map<string, ConnectionRecord>;
  all: readonly ConnectionRecord[];
}

/** Records scoped like a CachePolicy: tenant-wide, or one workspace's (which wins), by a name. */
interface ScopedGroup<R> {
  readonly tenantWide: Map<string, R>;
  readonly byWorkspace: Map<string, Map<string, R>>;
}

interface Scoped {
  tenantId: string;
  workspaceId?: string;
}

function scopedGet<R>(
  groups: Map<string, ScopedGroup<R>>,
  tenantId: string,
  workspaceId: string | undefined,
  name: string,
): R | undefined {
  const group = groups.get(tenantId);
  if (group === undefined) return undefined;
  if (workspaceId !== undefined) {
    const own = group.byWorkspace.get(workspaceId)?.get(name);
    if (own !== undefined) return own;
  }
  return group.tenantWide.get(name);
}

function scopedSet<R extends Scoped>(groups: Map<string, ScopedGroup<R>>, name: string, record: R): void {
  let group = groups.get(record.tenantId);
  if (group === undefined) {
    group = { tenantWide: new Map(), byWorkspace: new Map() };
    groups.set(record.tenantId, group);
  }
  let byName = group.tenantWide;
  if (record.workspaceId !== undefined) {
    byName = group.byWorkspace.get(record.workspaceId) ?? new Map();
    group.byWorkspace.set(record.workspaceId, byName);
  }
  byName.set(name, record);
}

function scopedDelete<R extends Scoped>(groups: Map<string, ScopedGroup<R>>, name: string, record: R): void {
  const group = groups.get(record.tenantId);
  if (group === undefined) return;
  if (record.workspaceId === undefined) {
    deleteIfSame(group.tenantWide, name, record);
  } else {
    const byName = group.byWorkspace.get(record.workspaceId);
    if (byName !== undefined) {
      deleteIfSame(byName, name, record);
      if (byName.size === 0) group.byWorkspace.delete(record.workspaceId);
    }
  }
  if (group.tenantWide.size === 0 && group.byWorkspace.size === 0) groups.delete(record.tenantId);
}

const NO_CONNECTIONS: readonly ConnectionRecord[] = Object.freeze([]);
/** Parent links followed at most (a chain is a couple of levels; a loop must not spin). */
const MAX_TENANT_DEPTH = 16;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class ConfigIndex {
  #records: ConfigSnapshot = createEmptySnapshot();
  readonly #apiKeysByHash = new Map<string, ApiKeyRecord>();
  readonly #patsByHash = new Map<string, PatRecord>();
  readonly #provisioningKeysByHash = new Map<string, ProvisioningKeyRecord>();
  readonly #connectionsByTenant = new Map<string, ConnectionGroup>();
  readonly #policiesByTenant = new Map<string, ScopedGroup<CachePolicyRecord>>();
  readonly #routesByTenant = new Map<string, ScopedGroup<ModelRouteRecord>>();
  /** The platform tenant's `shared: true` routes, by model. */
  readonly #sharedRoutes = new Map<string, ModelRouteRecord>();

  tenant(id: string): TenantRecord | undefined {
    return this.#records.tenant.get(id);
  }

  /**
   * Whether the tenant or one of its ancestors (its liable parent, and so on up) is suspended.
   * A couple of Map gets on the request path; a parent chain that loops stops at a tenant seen.
   */
  isSuspended(tenantId: string): boolean {
    let current = this.#records.tenant.get(tenantId);
    for (let hops = 0; current !== undefined && hops < MAX_TENANT_DEPTH; hops += 1) {
      if (current.suspended === true) return true;
      if (current.parentId === undefined || current.parentId === current.id) return false;
      current = this.#records.tenant.get(current.parentId);
    }
    return false;
  }

  /** The tenant whose slug in force is `slug` (the oldest, should two claim it); admin lookups only. */
  tenantBySlug(slug: string): TenantRecord | undefined {
    let found: TenantRecord | undefined;
    for (const tenant of this.#records.tenant.values()) {
      if ((tenant.slug ?? tenant.id) !== slug) continue;
      if (found === undefined || (tenant.createdAt ?? '') < (found.createdAt ?? '')) found = tenant;
    }
    return found;
  }

  /** The tenants whose liable parent is `tenantId` (a scan: control-plane reads only). */
  childrenOf(tenantId: string): TenantRecord[] {
    return [...this.#records.tenant.values()].filter((tenant) => tenant.parentId === tenantId);
  }

  apiKey(id: string): ApiKeyRecord | undefined {
    return this.#records.apiKey.get(id);
  }

  apiKeyByHash(hash: string): ApiKeyRecord | undefined {
    return this.#apiKeysByHash.get(hash);
  }

  patByHash(hash: string): PatRecord | undefined {
    return this.#patsByHash.get(hash);
  }

  provisioningKeyByHash(hash: string): ProvisioningKeyRecord | undefined {
    return this.#provisioningKeysByHash.get(hash);
  }

  connectionBySlug(tenantId: string, slug: string): ConnectionRecord | undefined {
    return this.#connectionsByTenant.get(tenantId)?.bySlug.get(slug);
  }

  connectionsOfTenant(tenantId: string): readonly ConnectionRecord[] {
    return this.#connectionsByTenant.get(tenantId)?.all ?? NO_CONNECTIONS;
  }

  /** The named policy for a workspace: its own if it has one, else the tenant-wide one. */
  cachePolicy(
    tenantId: string,
    workspaceId: string | undefined,
    name: string,
  ): CachePolicyRecord | undefined {
    return scopedGet(this.#policiesByTenant, tenantId, workspaceId, name);
  }

  /**
   * The route a request's `model` names: the workspace's own, else the tenant-wide one, else a
   * shared platform route; undefined when the model is not a route (it then routes as a model
   * string). Map gets only.
   */
  modelRoute(tenantId: string, workspaceId: string | undefined, model: string): ModelRouteRecord | undefined {
    if (this.#routesByTenant.size === 0 && this.#sharedRoutes.size === 0) return undefined;
    return scopedGet(this.#routesByTenant, tenantId, workspaceId, model) ?? this.#sharedRoutes.get(model);
  }

  list<K extends ConfigKind>(kind: K): ConfigRecordMap[K][] {
    return Array.from(this.#records[kind].values());
  }

  protected record<K extends ConfigKind>(kind: K, id: string): ConfigRecordMap[K] | undefined {
    return this.#records[kind]?.get(id) as ConfigRecordMap[K] | undefined;
  }

  protected clearRecords(): void {
    this.#records = createEmptySnapshot();
    this.#apiKeysByHash.clear();
    this.#patsByHash.clear();
    this.#provisioningKeysByHash.clear();
    this.#connectionsByTenant.clear();
    this.#policiesByTenant.clear();
    this.#routesByTenant.clear();
    this.#sharedRoutes.clear();
  }

  /** Puts (or, with undefined, removes) one record, its secondary indexes with it; frozen first. */
  protected applyRecord(kind: ConfigKind, id: string, record: ConfigRecord | undefined): void {
    const records = this.#records[kind] as Map<string, ConfigRecord>;
    const previous = records.get(id);
    if (previous !== undefined) {
      records.delete(id);
      this.#unindex(kind, id, previous);
    }
    if (record !== undefined) {
      deepFreeze(record);
      records.set(id, record);
      this.#index(kind, id, record);
    }
  }

  #index(kind: ConfigKind, id: string, record: ConfigRecord): void {
    switch (kind) {
      case 'apiKey':
        this.#apiKeysByHash.set((record as ApiKeyRecord).hash, record as ApiKeyRecord);
        break;
      case 'pat':
        this.#patsByHash.set((record as PatRecord).hash, record as PatRecord);
        break;
      case 'provisioningKey':
        this.#provisioningKeysByHash.set(
          (record as ProvisioningKeyRecord).hash,
          record as ProvisioningKeyRecord,
        );
        break;
      case 'connection': {
        const connection = record as ConnectionRecord;
        let group = this.#connectionsByTenant.get(connection.tenantId);
        if (group === undefined) {
          group = { byId: new Map(), bySlug: new Map(), all: NO_CONNECTIONS };
          this.#connectionsByTenant.set(connection.tenantId, group);
        }
        group.byId.set(id, connection);
        this.#regroupConnections(group);
        break;
      }
      case 'cachePolicy': {
        const policy = record as CachePolicyRecord;
        scopedSet(this.#policiesByTenant, policy.name, policy);
        break;
      }
      case 'modelRoute': {
        const route = record as ModelRouteRecord;
        scopedSet(this.#routesByTenant, route.model, route);
        if (route.shared && route.workspaceId === undefined) this.#sharedRoutes.set(route.model, route);
        break;
      }
      case 'tenant':
        break;
    }
  }

  #unindex(kind: ConfigKind, id: string, record: ConfigRecord): void {
    switch (kind) {
      case 'apiKey':
        deleteIfSame(this.#apiKeysByHash, (record as ApiKeyRecord).hash, record);
        break;
      case 'pat':
        deleteIfSame(this.#patsByHash, (record as PatRecord).hash, record);
        break;
      case 'provisioningKey':
        deleteIfSame(this.#provisioningKeysByHash, (record as ProvisioningKeyRecord).hash, record);
        break;
      case 'connection': {
        const { tenantId } = record as ConnectionRecord;
        const group = this.#connectionsByTenant.get(tenantId);
        if (group === undefined) break;
        group.byId.delete(id);
        if (group.byId.size === 0) this.#connectionsByTenant.delete(tenantId);
        else this.#regroupConnections(group);
        break;
      }
      case 'cachePolicy': {
        const policy = record as CachePolicyRecord;
        scopedDelete(this.#policiesByTenant, policy.name, policy);
        break;
      }
      case 'modelRoute': {
        const route = record as ModelRouteRecord;
        scopedDelete(this.#routesByTenant, route.model, route);
        deleteIfSame(this.#sharedRoutes, route.model, route);
        break;
      }
      case 'tenant':
        break;
    }
  }

  /**
   * Rebuilds a tenant's slug index and list (write path only, proportional to that tenant's
   * connections). Slugs are unique per tenant; should two records share one anyway, the lowest id
   * wins so that every process resolves the conflict the same way.
   */
  #regroupConnections(group: ConnectionGroup): void {
    const all = [...group.byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const bySlug = new Map<string, ConnectionRecord>();
    for (const [, connection] of all) {
      if (!bySlug.has(connection.slug)) bySlug.set(connection.slug, connection);
    }
    group.bySlug = bySlug;
    group.all = Object.freeze(all.map(([, connection]) => connection));
  }
}

function deleteIfSame<V>(map: Map<string, V>, key: string, value: unknown): void {
  if (map.get(key) === value) map.delete(key);
}
