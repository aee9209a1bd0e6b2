/**
 * The Kubernetes resources client (DESIGN section 2): Tenant, CachePolicy, Connection, ModelRoute
 * and Secret objects in the API server. Writes are server-side apply with this client's own field manager;
 * reads come from informers (list+watch caches, see kubernetes-informer.ts) once started, from the
 * API otherwise.
 *
 * Secrets are watched in every namespace, narrowed as far as the API allows without asking users
 * to label their Secrets (a Connection's Secret needs no label): the server leaves out the Secret
 * types Kubernetes and Helm keep for themselves (IGNORED_SECRET_TYPES), and only Secrets of tenant
 * namespaces (`tenant-*`, where Connections and credential Secrets live) enter the cache. Neither
 * a namespace prefix nor "Secrets a Connection names" can be a selector, and RBAC cannot grant
 * Secrets of tenant-* namespaces alone; values.yaml ("Secrets") says what this costs.
 *
 * Beyond ResourcesClient it offers what the operator needs: synchronous cache reads, change events
 * with the previous object, finalizers applied alone, status by server-side apply on the status
 * subresource, namespaces and their RoleBindings, and events.
 */
import {
  type CustomResourceKind,
  clone,
  collectionPath,
  describeObject,
  IGNORED_SECRET_TYPES,
  KINDS,
  type ObjectRef,
  objectPath,
  requestBody,
  validationError,
} from './kubernetes-api.ts';
import { type KubernetesEventInput, recordEvent } from './kubernetes-events.ts';
import { applyFinalizers } from './kubernetes-finalizers.ts';
import { type InformerEvent, type InformerTimings, KubeInformer } from './kubernetes-informer.ts';
import {
  applyNamespace,
  applyRoleBinding,
  deleteRoleBinding,
  listSecretMetadata,
  maySecretsBeCreated,
  type NamespaceRoleBinding,
  type SecretMetadata,
  secretType,
} from './kubernetes-namespace-access.ts';
import {
  CONTENT_TYPE_APPLY,
  isKubeStatus,
  type KubeConfig,
  KubeTransport,
  type KubeTransportOptions,
  loadKubeConfig,
} from './kubernetes-transport.ts';
import type { ResourcesLog } from './local-resources.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resource-errors.ts';
import {
  type AnyResource,
  RESOURCE_KINDS,
  type ResourceByKind,
  type ResourceEvent,
  type ResourceKind,
  type ResourcesClient,
} from './types.ts';

export type { CustomResourceKind, ObjectRef } from './kubernetes-api.ts';
export type { KubernetesEventInput } from './kubernetes-events.ts';

/** A change seen by an informer; `modified` carries the object as it was before. */
export type ResourceChange =
  | { type: 'added' | 'deleted'; resource: AnyResource }
  | { type: 'modified'; resource: AnyResource; previous: AnyResource };

export interface KubernetesResourcesOptions {
  /** Default: a KubeConfig loaded from KUBECONFIG, ~/.kube/config or the in-cluster service account. */
  kubeConfig?: KubeConfig;
  /** A transport to share (e.g. with the leader election's lease client); overrides kubeConfig. */
  transport?: KubeTransport;
  transportOptions?: KubeTransportOptions;
  /** Field manager of apply() and patchStatus(); default `inference-gateway`. */
  fieldManager?: string;
  /** Which Secret namespaces are cached; default: names starting with `tenant-`. */
  secretNamespacePrefix?: string;
  informerTimings?: Partial<InformerTimings>;
  /** `reportingInstance` of the events this client records. */
  instance?: string;
  log?: ResourcesLog & { debug?(details: object, message: string): void };
}

export class KubernetesResources implements ResourcesClient {
  readonly #transport: KubeTransport;
  readonly #ownsTransport: boolean;
  readonly #fieldManager: string;
  readonly #instance: string;
  readonly #informers: { [K in ResourceKind]: KubeInformer<ResourceByKind[K]> };
  readonly #log: NonNullable<KubernetesResourcesOptions['log']>;
  readonly #secretNamespacePrefix: string;
  #started = false;

  constructor(options: KubernetesResourcesOptions = {}) {
    if (options.transport) {
      this.#transport = options.transport;
      this.#ownsTransport = false;
    } else {
      const kubeConfig = options.kubeConfig ?? loadKubeConfig();
      this.#transport = new KubeTransport(kubeConfig, options.transportOptions);
      this.#ownsTransport = true;
    }
    this.#fieldManager = options.fieldManager ?? 'inference-gateway';
    this.#instance = (options.instance ?? this.#fieldManager).slice(0, 128);
    this.#log = options.log ?? { warn: () => {} };
    const prefix = options.secretNamespacePrefix ?? 'tenant-';
    this.#secretNamespacePrefix = prefix;
    const informer = <K extends ResourceKind>(
      kind: K,
      filter: { keep?: (object: ResourceByKind[K]) => boolean; fieldSelector?: string } = {},
    ) =>
      new KubeInformer<ResourceByKind[K]>({
        transport: this.#transport,
        name: kind,
        path: collectionPath(kind),
        stamp: { apiVersion: KINDS[kind].apiVersion, kind },
        ...filter,
        timings: options.informerTimings,
        log: this.#log,
      });
    this.#informers = {
      Tenant: informer('Tenant'),
      CachePolicy: informer('CachePolicy'),
      Connection: informer('Connection'),
      ModelRoute: informer('ModelRoute'),
      Secret: informer('Secret', {
        fieldSelector: IGNORED_SECRET_TYPES.map((type) => `type!=${type}`).join(','),
        keep: (secret) => (secret.metadata.namespace ?? '').startsWith(prefix),
      }),
    };
  }

  /** Starts the informers (idempotent); reads come from their caches from now on. */
  start(): void {
    this.#started = true;
    for (const kind of RESOURCE_KINDS) this.#informers[kind].start();
  }

  /** Resolves once every informer has listed once. */
  async whenSynced(): Promise<void> {
    await Promise.all(RESOURCE_KINDS.map((kind) => this.#informers[kind].whenSynced()));
  }

  get synced(): boolean {
    return RESOURCE_KINDS.every((kind) => this.#informers[kind].synced);
  }

  /** The cached object (frozen), or undefined. Only after start(). */
  cached<K extends ResourceKind>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined {
    return this.#informers[kind].get(name, KINDS[kind].namespaced ? namespace : undefined) as
      | ResourceByKind[K]
      | undefined;
  }

  /** Cached objects (frozen) of a kind, optionally of one namespace. Only after start(). */
  cachedList<K extends ResourceKind>(kind: K, namespace?: string): ResourceByKind[K][] {
    return this.#informers[kind].list(namespace) as ResourceByKind[K][];
  }

  /** Every change the informers see, with the previous object on `modified`. */
  onChange(listener: (change: ResourceChange) => void): () => void {
    const unsubscribes = RESOURCE_KINDS.map((kind) =>
      (this.#informers[kind] as KubeInformer<AnyResource>).on((event: InformerEvent<AnyResource>) => {
        if (event.type === 'modified') {
          listener({ type: 'modified', resource: event.object, previous: event.previous });
        } else listener({ type: event.type, resource: event.object });
      }),
    );
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  async list<K extends ResourceKind>(kind: K, namespace?: string): Promise<ResourceByKind[K][]> {
    if (this.#started && this.#informers[kind].synced && this.#cachesNamespace(kind, namespace)) {
      return clone(this.cachedList(kind, namespace));
    }
    const list = await this.#transport.request<{ items: ResourceByKind[K][] }>({
      method: 'GET',
      path: collectionPath(kind, namespace),
    });
    return list.items.map(
      (item) => ({ ...item, apiVersion: KINDS[kind].apiVersion, kind }) as ResourceByKind[K],
    );
  }

  async get<K extends ResourceKind>(
    kind: K,
    name: string,
    namespace?: string,
  ): Promise<ResourceByKind[K] | undefined> {
    if (this.#started && this.#informers[kind].synced && this.#cachesNamespace(kind, namespace)) {
      const cached = this.cached(kind, name, namespace);
      return cached && clone(cached);
    }
    return this.#transport.requestOptional<ResourceByKind[K]>({
      method: 'GET',
      path: objectPath(kind, name, namespace),
    });
  }

  async apply<R extends AnyResource>(resource: R): Promise<R> {
    const { kind, metadata } = resource;
    try {
      return await this.#serverSideApply(resource, false);
    } catch (error) {
      throw validationError(error, describeObject(kind, metadata.name, metadata.namespace));
    }
  }

  async create<R extends AnyResource>(resource: R): Promise<R> {
    const { kind, metadata } = resource;
    const what = describeObject(kind, metadata.name, metadata.namespace);
    try {
      return await this.#transport.request<R>({
        method: 'POST',
        path: collectionPath(kind, metadata.namespace),
        query: { fieldManager: this.#fieldManager },
        body: requestBody(resource, { keepResourceVersion: false }),
      });
    } catch (error) {
      if (isKubeStatus(error, 409)) throw new ResourceConflictError(what, 'exists');
      throw validationError(error, what);
    }
  }

  /**
   * Server-side apply with the resourceVersion kept: the API server then treats it as a
   * precondition and answers 409 when the object moved on.
   */
  async update<R extends AnyResource>(resource: R): Promise<R> {
    const { kind, metadata } = resource;
    const what = describeObject(kind, metadata.name, metadata.namespace);
    if (metadata.resourceVersion === undefined) throw new ResourceConflictError(what, 'changed');
    try {
      return await this.#serverSideApply(resource, true);
    } catch (error) {
      if (isKubeStatus(error, 409)) throw new ResourceConflictError(what, 'changed');
      if (isKubeStatus(error, 404)) throw new ResourceNotFoundError(what);
      throw validationError(error, what);
    }
  }

  #serverSideApply<R extends AnyResource>(resource: R, keepResourceVersion: boolean): Promise<R> {
    const { kind, metadata } = resource;
    return this.#transport.request<R>({
      method: 'PATCH',
      path: objectPath(kind, metadata.name, metadata.namespace),
      query: { fieldManager: this.#fieldManager, force: true },
      body: requestBody(resource, { keepResourceVersion }),
      contentType: CONTENT_TYPE_APPLY,
    });
  }

  async delete(kind: ResourceKind, name: string, namespace?: string): Promise<boolean> {
    const deleted = await this.#transport.requestOptional<object>({
      method: 'DELETE',
      path: objectPath(kind, name, namespace),
    });
    return deleted !== undefined;
  }

  /** Server-side apply of the status subresource: fields this manager set before and omits now go. */
  async patchStatus(
    kind: CustomResourceKind,
    name: string,
    namespace: string | undefined,
    status: object,
  ): Promise<void> {
    try {
      await this.#transport.request({
        method: 'PATCH',
        path: `${objectPath(kind, name, namespace)}/status`,
        query: { fieldManager: this.#fieldManager, force: true },
        body: {
          apiVersion: KINDS[kind].apiVersion,
          kind,
          metadata: { name, ...(KINDS[kind].namespaced ? { namespace } : {}) },
          status,
        },
        contentType: CONTENT_TYPE_APPLY,
      });
    } catch (error) {
      if (isKubeStatus(error, 404)) throw new ResourceNotFoundError(describeObject(kind, name, namespace));
      throw validationError(error, describeObject(kind, name, namespace));
    }
  }

  /** Every create, update and delete from now on (starts the informers). */
  watch(listener: (event: ResourceEvent) => void): () => void {
    const unsubscribe = this.onChange((change) => listener({ type: change.type, resource: change.resource }));
    this.start();
    return unsubscribe;
  }

  async close(): Promise<void> {
    await Promise.all(RESOURCE_KINDS.map((kind) => this.#informers[kind].stop()));
    if (this.#ownsTransport) await this.#transport.close();
  }

  /** Applies exactly `finalizers` as this client's finalizer set (see kubernetes-finalizers.ts). */
  applyFinalizers(ref: ObjectRef, finalizers: readonly string[], resourceVersion: string): Promise<boolean> {
    return applyFinalizers(
      this.#transport,
      `${this.#fieldManager}-finalizers`,
      ref,
      finalizers,
      resourceVersion,
    );
  }

  /** Creates or updates a namespace with these labels (server-side apply; see kubernetes-namespace-access.ts). */
  async applyNamespace(name: string, labels: Record<string, string>): Promise<void> {
    await applyNamespace(this.#transport, this.#fieldManager, name, labels);
  }

  /** Creates or updates a RoleBinding of a ClusterRole in the namespace, named after the ClusterRole. */
  async applyRoleBinding(
    namespace: string,
    binding: NamespaceRoleBinding,
    labels: Record<string, string>,
  ): Promise<void> {
    await applyRoleBinding(this.#transport, this.#fieldManager, namespace, binding, labels);
  }

  /** The namespace's Secrets, metadata only (names and labels), whatever their type. */
  listSecretMetadata(namespace: string): Promise<SecretMetadata[]> {
    return listSecretMetadata(this.#transport, namespace);
  }

  /** The type of a Secret the cache may leave out (IGNORED_SECRET_TYPES); undefined when none exists. */
  secretType(name: string, namespace: string): Promise<string | undefined> {
    return secretType(this.#transport, namespace, name);
  }

  /** Deletes a RoleBinding; false when it did not exist. */
  deleteRoleBinding(namespace: string, name: string): Promise<boolean> {
    return deleteRoleBinding(this.#transport, namespace, name);
  }

  /**
   * Resolves once this client may create Secrets in the namespace, or after `timeoutMs`: a
   * tenant's RoleBindings are made by the operator as it creates the namespace, and the API
   * server's authorizer sees a new binding a moment after it is stored. Past the deadline the
   * write that follows fails with the API server's own reason.
   */
  async awaitNamespaceAccess(namespace: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let pauseMs = 50; ; pauseMs = Math.min(pauseMs * 2, 500)) {
      if (await maySecretsBeCreated(this.#transport, namespace)) return;
      if (Date.now() + pauseMs > deadline) {
        this.#log.warn({ namespace }, 'no right to write Secrets in the namespace yet; writing anyway');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  /** Records an events.k8s.io/v1 Event about the object (see kubernetes-events.ts). */
  async recordEvent(regarding: AnyResource, event: KubernetesEventInput): Promise<void> {
    await recordEvent(this.#transport, this.#instance, regarding, event);
  }

  /**
   * Whether reads of this kind and namespace can be served from the informer cache. (Secrets of
   * IGNORED_SECRET_TYPES are not in it: once started, reads do not see them.)
   */
  #cachesNamespace(kind: ResourceKind, namespace: string | undefined): boolean {
    return kind !== 'Secret' || (namespace ?? '').startsWith(this.#secretNamespacePrefix);
  }
}
