/**
 * The embedded resources client (DESIGN sections 2 and 8): Tenant, CachePolicy, Connection,
 * ModelRoute and Secret objects held in process, persisted to a JSON state file under STATE_DIR,
 * and optionally fed from a RESOURCES_DIR of YAML that is applied at start and watched, like
 * `kubectl apply -f`.
 *
 * It behaves like the API server where callers can tell: objects get a uid, a generation that
 * moves when spec (or Secret data) changes, a global resourceVersion and a creation time; an
 * apply that changes nothing is a no-op; validation follows the CRDs (validate.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ResourceConflictError, ResourceNotFoundError, ResourceValidationError } from './resource-errors.ts';
import type {
  AnyResource,
  CustomResourceKind,
  ResourceByKind,
  ResourceEvent,
  ResourceKind,
  ResourcesClient,
} from './types.ts';
import { validateResource } from './validate.ts';
import {
  keyOfDocument,
  type ResourcesDirBookkeeping,
  ResourcesDirLoader,
  resourceKey,
} from './yaml-loader.ts';

export interface ResourcesLog {
  warn(details: object, message: string): void;
}

export interface LocalResourcesOptions {
  /** JSON file that keeps every object across restarts (mode 0600: Secrets hold key material). */
  stateFile?: string;
  /** Folder of resource YAML/JSON applied at start and watched. */
  resourcesDir?: string;
  log?: ResourcesLog;
  /** Write-behind delay of the state file. */
  persistDelayMs?: number;
  /** Quiet time after a change in resourcesDir before the folder is re-read. */
  watchDelayMs?: number;
}

const STATE_VERSION = 1;

interface StateFile {
  version: typeof STATE_VERSION;
  resourceVersion: number;
  objects: AnyResource[];
  /** What the resourcesDir loader needs to prune, at start, what a file dropped meanwhile. */
  resourcesDir?: ResourcesDirBookkeeping;
}

const CLUSTER_SCOPED: ReadonlySet<ResourceKind> = new Set(['Tenant']);
const keyOf = resourceKey;

function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** What the caller owns in an object: spec (or type and data), labels and annotations. */
function contentOf(resource: AnyResource): unknown {
  const body =
    resource.kind === 'Secret' ? { type: resource.type, data: resource.data ?? {} } : resource.spec;
  return { body, labels: resource.metadata.labels ?? {}, annotations: resource.metadata.annotations ?? {} };
}

function bodyOf(resource: AnyResource): unknown {
  return (contentOf(resource) as { body: unknown }).body;
}

/** The caller's part of an incoming object, with Secret stringData folded into base64 data. */
function normalise(input: AnyResource): AnyResource {
  const resource = cloneJson(input);
  const { name, namespace, labels, annotations } = resource.metadata;
  resource.metadata = { name };
  if (namespace && !CLUSTER_SCOPED.has(resource.kind)) resource.metadata.namespace = namespace;
  if (labels) resource.metadata.labels = labels;
  if (annotations) resource.metadata.annotations = annotations;
  delete (resource as { status?: unknown }).status;
  if (resource.kind === 'Secret') {
    const data = { ...resource.data };
    for (const [key, value] of Object.entries(resource.stringData ?? {})) {
      data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    resource.data = data;
    delete resource.stringData;
  }
  return resource;
}

async function writeFileAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.tmp`;
  await rm(temporary, { force: true });
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

export class LocalResources implements ResourcesClient {
  readonly #objects = new Map<string, AnyResource>();
  readonly #listeners = new Set<(event: ResourceEvent) => void>();
  readonly #log: ResourcesLog;
  readonly #stateFile: string | undefined;
  readonly #persistDelayMs: number;
  #resourceVersion = 0;
  #closed = false;
  // Write-behind persistence.
  #persistTimer: NodeJS.Timeout | undefined;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();
  #dirLoader: ResourcesDirLoader | undefined;
  /** Bookkeeping of an earlier run with resourcesDir, kept while this run has none. */
  #savedDirBookkeeping: ResourcesDirBookkeeping | undefined;

  private constructor(options: LocalResourcesOptions) {
    this.#log = options.log ?? { warn: () => {} };
    this.#stateFile = options.stateFile;
    this.#persistDelayMs = options.persistDelayMs ?? 100;
  }

  /** Loads the state file, then applies and starts watching resourcesDir. */
  static async open(options: LocalResourcesOptions = {}): Promise<LocalResources> {
    const resources = new LocalResources(options);
    await resources.#loadState();
    if (options.resourcesDir !== undefined) {
      resources.#dirLoader = new ResourcesDirLoader({
        dir: options.resourcesDir,
        log: resources.#log,
        watchDelayMs: options.watchDelayMs ?? 100,
        bookkeeping: resources.#savedDirBookkeeping,
        target: {
          store: (resource) => resources.#store(resource).created,
          remove: (key) => resources.#remove(key),
          bookkeepingChanged: () => resources.#schedulePersist(),
        },
      });
      try {
        await resources.#dirLoader.start();
      } catch (error) {
        await resources.close();
        throw error;
      }
    }
    return resources;
  }

  async list<K extends ResourceKind>(kind: K, namespace?: string): Promise<ResourceByKind[K][]> {
    const found: ResourceByKind[K][] = [];
    for (const resource of this.#objects.values()) {
      if (resource.kind !== kind) continue;
      if (namespace !== undefined && resource.metadata.namespace !== namespace) continue;
      found.push(cloneJson(resource) as ResourceByKind[K]);
    }
    return found;
  }

  async get<K extends ResourceKind>(
    kind: K,
    name: string,
    namespace?: string,
  ): Promise<ResourceByKind[K] | undefined> {
    const resource = this.#objects.get(keyOf(kind, name, namespace));
    return resource && (cloneJson(resource) as ResourceByKind[K]);
  }

  async apply<R extends AnyResource>(resource: R): Promise<R> {
    this.#checkOpen();
    const metadata = resource.metadata as AnyResource['metadata'] | undefined;
    const previous =
      metadata === undefined
        ? undefined
        : this.#objects.get(keyOf(resource.kind, metadata.name, metadata.namespace));
    const messages = validateResource(resource, previous);
    if (messages.length > 0) {
      throw new ResourceValidationError(keyOfDocument(resource) ?? 'resource', messages);
    }
    return cloneJson(this.#store(resource).stored) as R;
  }

  async create<R extends AnyResource>(resource: R): Promise<R> {
    this.#checkOpen();
    const key = keyOf(resource.kind, resource.metadata.name, resource.metadata.namespace);
    if (this.#objects.has(key)) throw new ResourceConflictError(key, 'exists');
    return this.apply(resource);
  }

  async update<R extends AnyResource>(resource: R): Promise<R> {
    this.#checkOpen();
    const key = keyOf(resource.kind, resource.metadata.name, resource.metadata.namespace);
    const existing = this.#objects.get(key);
    if (!existing) throw new ResourceNotFoundError(key);
    if (existing.metadata.resourceVersion !== resource.metadata.resourceVersion) {
      throw new ResourceConflictError(key, 'changed');
    }
    return this.apply(resource);
  }

  async delete(kind: ResourceKind, name: string, namespace?: string): Promise<boolean> {
    this.#checkOpen();
    return this.#remove(keyOf(kind, name, namespace));
  }

  async patchStatus(
    kind: CustomResourceKind,
    name: string,
    namespace: string | undefined,
    status: object,
  ): Promise<void> {
    this.#checkOpen();
    const key = keyOf(kind, name, namespace);
    const existing = this.#objects.get(key);
    if (!existing || existing.kind === 'Secret') throw new ResourceNotFoundError(key);
    const updated = { ...existing, status: cloneJson(status) } as AnyResource;
    updated.metadata = { ...existing.metadata, resourceVersion: this.#nextResourceVersion() };
    this.#objects.set(key, updated);
    this.#changed('modified', updated);
  }

  watch(listener: (event: ResourceEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Writes pending changes to the state file now (otherwise written shortly after each change). */
  async flush(): Promise<void> {
    if (this.#stateFile === undefined) return;
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    if (this.#dirty) this.#queueWrite();
    await this.#writing;
    if (this.#dirty) throw new Error(`could not write the resources state file ${this.#stateFile}`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#dirLoader?.close();
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    if (this.#dirty) this.#queueWrite();
    await this.#writing;
    this.#listeners.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('the resources client is closed');
  }

  #nextResourceVersion(): string {
    this.#resourceVersion += 1;
    return String(this.#resourceVersion);
  }

  /** Creates or replaces the object's content; a no-op (no event) when nothing would change. */
  #store(input: AnyResource): { stored: AnyResource; created: boolean } {
    const incoming = normalise(input);
    const key = keyOf(incoming.kind, incoming.metadata.name, incoming.metadata.namespace);
    const existing = this.#objects.get(key);
    if (existing && isDeepStrictEqual(contentOf(existing), contentOf(incoming))) {
      return { stored: existing, created: false };
    }
    const bodyChanged = !existing || !isDeepStrictEqual(bodyOf(existing), bodyOf(incoming));
    const previousGeneration = existing?.metadata.generation ?? 0;
    incoming.metadata = {
      ...incoming.metadata,
      uid: existing?.metadata.uid ?? randomUUID(),
      generation: bodyChanged ? previousGeneration + 1 : previousGeneration,
      resourceVersion: this.#nextResourceVersion(),
      creationTimestamp: existing?.metadata.creationTimestamp ?? new Date().toISOString(),
    };
    if (existing && existing.kind !== 'Secret' && existing.status !== undefined) {
      (incoming as { status?: unknown }).status = existing.status;
    }
    this.#objects.set(key, incoming);
    this.#changed(existing ? 'modified' : 'added', incoming);
    return { stored: incoming, created: !existing };
  }

  #remove(key: string): boolean {
    const existing = this.#objects.get(key);
    if (!existing) return false;
    this.#objects.delete(key);
    this.#dirLoader?.forget(key);
    const last = {
      ...existing,
      metadata: { ...existing.metadata, resourceVersion: this.#nextResourceVersion() },
    };
    this.#changed('deleted', last);
    return true;
  }

  #changed(type: ResourceEvent['type'], resource: AnyResource): void {
    this.#schedulePersist();
    // Queued as microtasks before the mutating call resolves: whoever awaits apply() and then
    // asks a watcher whether it caught up (e.g. LocalReconciler.synced()) sees the event handled.
    for (const listener of this.#listeners) {
      const event: ResourceEvent = { type, resource: cloneJson(resource) };
      queueMicrotask(() => {
        if (!this.#listeners.has(listener)) return;
        try {
          listener(event);
        } catch (error) {
          this.#log.warn({ err: error }, 'resources watch listener threw');
        }
      });
    }
  }

  async #loadState(): Promise<void> {
    if (this.#stateFile === undefined) return;
    let text: string;
    try {
      text = await readFile(this.#stateFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const state = JSON.parse(text) as StateFile;
    if (state.version !== STATE_VERSION) {
      throw new Error(`state file ${this.#stateFile} has unknown version ${String(state.version)}`);
    }
    for (const resource of state.objects) {
      const key = keyOf(resource.kind, resource.metadata.name, resource.metadata.namespace);
      this.#objects.set(key, resource);
      this.#resourceVersion = Math.max(this.#resourceVersion, Number(resource.metadata.resourceVersion) || 0);
    }
    this.#resourceVersion = Math.max(this.#resourceVersion, state.resourceVersion);
    this.#savedDirBookkeeping = state.resourcesDir;
  }

  #schedulePersist(): void {
    if (this.#stateFile === undefined) return;
    this.#dirty = true;
    if (this.#persistTimer || this.#closed) return;
    this.#persistTimer = setTimeout(() => {
      this.#persistTimer = undefined;
      this.#queueWrite();
    }, this.#persistDelayMs);
  }

  /** Writes are chained, so they never overlap; each one writes the state as it is by then. */
  #queueWrite(): void {
    const stateFile = this.#stateFile;
    if (stateFile === undefined) return;
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      try {
        await writeFileAtomically(stateFile, JSON.stringify(this.#serialise()));
      } catch (error) {
        this.#dirty = true;
        this.#log.warn({ stateFile, err: error }, 'could not write the resources state file');
      }
    });
  }

  #serialise(): StateFile {
    return {
      version: STATE_VERSION,
      resourceVersion: this.#resourceVersion,
      objects: [...this.#objects.values()],
      resourcesDir: this.#dirLoader?.bookkeeping() ?? this.#savedDirBookkeeping,
    };
  }
}
