/**
 * RESOURCES_DIR: which files count, how one file becomes a list of documents (the YAML that
 * `kubectl apply -f` takes: multi-document YAML, JSON, `kind: List` wrappers), and the loader
 * that applies the folder to a store and keeps following it.
 */
import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { AnyResource, ObjectMeta, ResourceKind } from './types.ts';
import { validateResource } from './validate.ts';

const RESOURCE_FILE = /\.(ya?ml|json)$/i;

/** Dot-files are editor swap files or, in a mounted ConfigMap, the `..data` indirection. */
export function isResourceFileName(name: string): boolean {
  return !name.startsWith('.') && RESOURCE_FILE.test(name);
}

export interface ParsedResourceFile {
  /** Every non-empty document, `List` items unwrapped, in file order. */
  documents: unknown[];
  /** Syntax errors; when present, `documents` holds only what parsed cleanly. */
  errors: string[];
}

function unwrapList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(unwrapList);
  if (typeof value === 'object' && value !== null) {
    const fields = value as { kind?: unknown; items?: unknown };
    if (fields.kind === 'List' && Array.isArray(fields.items)) return fields.items.flatMap(unwrapList);
  }
  return [value];
}

/** Parses a file's text (YAML or JSON, which is YAML) into its documents. */
export function parseResourceDocuments(text: string): ParsedResourceFile {
  const documents: unknown[] = [];
  const errors: string[] = [];
  const parsed = parseAllDocuments(text);
  if (!Array.isArray(parsed)) return { documents, errors };
  parsed.forEach((document, index) => {
    if (document.errors.length > 0) {
      errors.push(`document ${index + 1}: ${document.errors.map((error) => error.message).join('; ')}`);
      return;
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    documents.push(...unwrapList(value));
  });
  return { documents, errors };
}

/** Absolute paths of the resource files directly in `dir` (symlinks followed), sorted by name. */
export async function listResourceFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter(isResourceFileName).sort();
  const files: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      if ((await stat(path)).isFile()) files.push(path);
    } catch (error) {
      // Removed between readdir and stat, or a dangling symlink: not a resource file now.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return files;
}

/** The file's text, or undefined when it no longer exists. */
export async function readResourceFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const CLUSTER_SCOPED: ReadonlySet<string> = new Set<ResourceKind>(['Tenant']);

/** The identity of an object: `kind/namespace/name` (namespace empty for cluster-scoped kinds). */
export function resourceKey(kind: string, name: string, namespace: string | undefined): string {
  return `${kind}/${CLUSTER_SCOPED.has(kind) ? '' : (namespace ?? '')}/${name}`;
}

/** The key of a document that names its kind and name, valid or not. */
export function keyOfDocument(document: unknown): string | undefined {
  const { kind, metadata } = (document ?? {}) as { kind?: unknown; metadata?: Partial<ObjectMeta> };
  if (typeof kind !== 'string' || typeof metadata?.name !== 'string') return undefined;
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  return resourceKey(kind, metadata.name, namespace);
}

/** What the loader needs from the store it feeds. */
export interface ResourcesDirTarget {
  /** Applies a valid document; true when that created the object. */
  store(resource: AnyResource): boolean;
  /** Deletes the object with this key. */
  remove(key: string): void;
  /** The loader's bookkeeping changed and should be persisted. */
  bookkeepingChanged(): void;
}

/** What the loader remembers across restarts, to prune what a file dropped meanwhile. */
export interface ResourcesDirBookkeeping {
  /** Keys of objects created by a file (only those may be pruned). */
  fileManaged: string[];
  /** For each file (by name), the keys it declared when last read. */
  fileDeclarations: Record<string, string[]>;
}

export interface ResourcesDirLoaderOptions {
  dir: string;
  target: ResourcesDirTarget;
  log: { warn(details: object, message: string): void };
  /** Quiet time after a change before the folder is re-read. */
  watchDelayMs: number;
  bookkeeping?: ResourcesDirBookkeeping;
}

/**
 * Keeps a store in step with a folder, like `kubectl apply --prune` on every change: new and
 * changed documents are applied; an object a file created is deleted once no file declares it.
 * Objects created through the API are never pruned. Nothing in a file can crash the process:
 * invalid documents and unreadable files are logged and skipped.
 */
export class ResourcesDirLoader {
  readonly #dir: string;
  readonly #target: ResourcesDirTarget;
  readonly #log: ResourcesDirLoaderOptions['log'];
  readonly #watchDelayMs: number;
  readonly #fileManaged: Set<string>;
  readonly #fileDeclarations = new Map<string, Set<string>>();
  /** Last text read per file: only files whose text changed are applied again. */
  readonly #fileTexts = new Map<string, string>();
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<void> | undefined;
  #reloadAgain = false;
  #closed = false;

  constructor(options: ResourcesDirLoaderOptions) {
    this.#dir = options.dir;
    this.#target = options.target;
    this.#log = options.log;
    this.#watchDelayMs = options.watchDelayMs;
    this.#fileManaged = new Set(options.bookkeeping?.fileManaged);
    for (const [file, keys] of Object.entries(options.bookkeeping?.fileDeclarations ?? {})) {
      this.#fileDeclarations.set(file, new Set(keys));
    }
  }

  /** Starts watching, then applies the folder as it is. */
  async start(): Promise<void> {
    // Watch before the first read, so that no edit falls between the two.
    this.#watcher = watch(this.#dir, () => this.#scheduleReload());
    this.#watcher.on('error', (error) =>
      this.#log.warn({ dir: this.#dir, err: error }, 'resources dir watch failed'),
    );
    await this.#reload();
  }

  /** The object was deleted through the API: if a file declares it again, the file re-creates it. */
  forget(key: string): void {
    this.#fileManaged.delete(key);
  }

  bookkeeping(): ResourcesDirBookkeeping {
    const fileDeclarations: Record<string, string[]> = {};
    for (const [file, keys] of this.#fileDeclarations) fileDeclarations[file] = [...keys];
    return { fileManaged: [...this.#fileManaged], fileDeclarations };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watcher?.close();
    clearTimeout(this.#timer);
    await this.#reloading;
  }

  #scheduleReload(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#reloading) {
        this.#reloadAgain = true;
        return;
      }
      this.#reloading = this.#reloadUntilSettled().finally(() => {
        this.#reloading = undefined;
      });
    }, this.#watchDelayMs);
  }

  async #reloadUntilSettled(): Promise<void> {
    do {
      this.#reloadAgain = false;
      try {
        await this.#reload();
      } catch (error) {
        this.#log.warn({ dir: this.#dir, err: error }, 'could not re-read the resources dir');
      }
    } while (this.#reloadAgain && !this.#closed);
  }

  /** Applies every file whose text changed; a file that disappeared declares nothing any more. */
  async #reload(): Promise<void> {
    const present = new Set<string>();
    for (const path of await listResourceFiles(this.#dir)) {
      const file = basename(path);
      let text: string | undefined;
      try {
        text = await readResourceFile(path);
      } catch (error) {
        this.#log.warn({ file: path, err: error }, 'could not read a resource file; it is left as it was');
        present.add(file);
        continue;
      }
      if (text === undefined) continue;
      present.add(file);
      if (this.#fileTexts.get(file) === text) continue;
      this.#fileTexts.set(file, text);
      this.#applyFile(path, file, text);
    }
    for (const file of [...this.#fileDeclarations.keys()]) {
      if (present.has(file)) continue;
      this.#fileTexts.delete(file);
      this.#declare(file, new Set());
    }
  }

  #applyFile(path: string, file: string, text: string): void {
    const { documents, errors } = parseResourceDocuments(text);
    const declared = new Set<string>();
    for (const error of errors) this.#log.warn({ file: path }, `skipped unparseable YAML: ${error}`);
    for (const document of documents) {
      const key = keyOfDocument(document);
      // An invalid document still declares its object: a typo must not delete what it describes.
      if (key) declared.add(key);
      const problems = validateResource(document);
      if (problems.length > 0) {
        this.#log.warn({ file: path, resource: key ?? 'unidentified', problems }, 'skipped invalid resource');
        continue;
      }
      if (this.#target.store(document as AnyResource) && key) this.#fileManaged.add(key);
    }
    // After a syntax error we cannot tell what the file still declares: keep what it declared.
    if (errors.length > 0) for (const key of this.#fileDeclarations.get(file) ?? []) declared.add(key);
    this.#declare(file, declared);
  }

  /** Records what a file declares now and deletes the objects it created that nothing declares. */
  #declare(file: string, declared: Set<string>): void {
    const previous = this.#fileDeclarations.get(file) ?? new Set<string>();
    if (declared.size > 0) this.#fileDeclarations.set(file, declared);
    else this.#fileDeclarations.delete(file);
    if (!isDeepStrictEqual(previous, declared)) this.#target.bookkeepingChanged();
    for (const key of previous) {
      if (declared.has(key) || !this.#fileManaged.has(key)) continue;
      const stillDeclared = [...this.#fileDeclarations.values()].some((keys) => keys.has(key));
      if (stillDeclared) continue;
      this.#fileManaged.delete(key);
      this.#target.remove(key);
    }
  }
}
