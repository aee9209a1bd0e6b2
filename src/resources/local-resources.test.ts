import { mkdir, mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalResources } from './local-resources.ts';
import { ResourceNotFoundError, ResourceValidationError } from './resource-errors.ts';
import {
  API_VERSION,
  type CachePolicyResource,
  type ResourceEvent,
  type SecretResource,
  type TenantResource,
} from './types.ts';

const tenant = (name = 'acme', displayName = 'Acme'): TenantResource => ({
  apiVersion: API_VERSION,
  kind: 'Tenant',
  metadata: { name },
  spec: { displayName, workspaces: [{ id: 'main', name: 'Main' }] },
});

const policy = (name: string, ttlSeconds = 60): CachePolicyResource => ({
  apiVersion: API_VERSION,
  kind: 'CachePolicy',
  metadata: { name, namespace: 'tenant-acme' },
  spec: { ttlSeconds },
});

const secret = (name: string, apiKey: string): SecretResource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'tenant-acme' },
  stringData: { apiKey },
});

/** Resolves with the first event that matches, or fails after `timeoutMs`. */
function nextEvent(
  resources: LocalResources,
  matches: (event: ResourceEvent) => boolean,
  timeoutMs = 5_000,
): Promise<ResourceEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unwatch();
      reject(new Error('no matching resource event in time'));
    }, timeoutMs);
    const unwatch = resources.watch((event) => {
      if (!matches(event)) return;
      clearTimeout(timer);
      unwatch();
      resolve(event);
    });
  });
}

const is =
  (type: ResourceEvent['type'], kind: string, name: string) =>
  (event: ResourceEvent): boolean =>
    event.type === type && event.resource.kind === kind && event.resource.metadata.name === name;

const YAML_FILE = `
apiVersion: ${API_VERSION}
kind: Tenant
metadata:
  name: acme
spec:
  displayName: Acme
  workspaces:
    - id: main
      name: Main
---
apiVersion: ${API_VERSION}
kind: CachePolicy
metadata:
  name: docs
  namespace: tenant-acme
spec:
  ttlSeconds: 120
  defaultTags: [docs]
---
apiVersion: v1
kind: Secret
metadata:
  name: openai-key
  namespace: tenant-acme
stringData:
  apiKey: sk-from-file
`;

let dir: string;
const opened: LocalResources[] = [];
const warnings: string[] = [];
const log = { warn: (_details: object, message: string) => void warnings.push(message) };

async function openResources(
  options: Parameters<typeof LocalResources.open>[0] = {},
): Promise<LocalResources> {
  const resources = await LocalResources.open({ log, persistDelayMs: 10, watchDelayMs: 20, ...options });
  opened.push(resources);
  return resources;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-resources-'));
  warnings.length = 0;
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((resources) => resources.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('LocalResources', () => {
  it('creates, reads, lists and deletes objects', async () => {
    const resources = await openResources();
    const created = await resources.apply(tenant());
    expect(created.metadata).toMatchObject({ name: 'acme', generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.resourceVersion).toBe('1');
    expect(Date.parse(created.metadata.creationTimestamp ?? '')).not.toBeNaN();
    await resources.apply(policy('docs'));
    await resources.apply(policy('other', 30));

    expect(await resources.get('Tenant', 'acme')).toEqual(created);
    expect(await resources.get('CachePolicy', 'docs', 'tenant-acme')).toMatchObject({
      spec: { ttlSeconds: 60 },
    });
    expect(await resources.get('CachePolicy', 'docs', 'tenant-other')).toBeUndefined();
    expect((await resources.list('CachePolicy')).map((item) => item.metadata.name).sort()).toEqual([
      'docs',
      'other',
    ]);
    expect(await resources.list('CachePolicy', 'tenant-other')).toEqual([]);

    expect(await resources.delete('CachePolicy', 'docs', 'tenant-acme')).toBe(true);
    expect(await resources.delete('CachePolicy', 'docs', 'tenant-acme')).toBe(false);
    expect(await resources.get('CachePolicy', 'docs', 'tenant-acme')).toBeUndefined();
  });

  it('hands out copies, never its own objects', async () => {
    const resources = await openResources();
    const created = await resources.apply(tenant());
    created.spec.displayName = 'changed';
    const read = await resources.get('Tenant', 'acme');
    if (read) read.spec.workspaces.push({ id: 'x', name: 'X' });
    expect(await resources.get('Tenant', 'acme')).toMatchObject({ spec: { displayName: 'Acme' } });
    expect((await resources.get('Tenant', 'acme'))?.spec.workspaces).toHaveLength(1);
  });

  it('bumps generation on a spec change only, and ignores an apply that changes nothing', async () => {
    const resources = await openResources();
    const first = await resources.apply(tenant());
    const same = await resources.apply(tenant());
    expect(same.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    const relabelled = await resources.apply<TenantResource>({
      ...tenant(),
      metadata: { name: 'acme', labels: { team: 'a' } },
    });
    expect(relabelled.metadata.generation).toBe(1);
    expect(Number(relabelled.metadata.resourceVersion)).toBeGreaterThan(
      Number(first.metadata.resourceVersion),
    );

    const changed = await resources.apply({ ...tenant('acme', 'Acme Inc'), metadata: relabelled.metadata });
    expect(changed.metadata.generation).toBe(2);
    expect(changed.metadata.uid).toBe(first.metadata.uid);
    expect(changed.metadata.creationTimestamp).toBe(first.metadata.creationTimestamp);
  });

  it('folds Secret stringData into base64 data and versions data changes', async () => {
    const resources = await openResources();
    const stored = await resources.apply(secret('openai-key', 'sk-one'));
    expect(stored.stringData).toBeUndefined();
    expect(stored.data).toEqual({ apiKey: Buffer.from('sk-one').toString('base64') });
    const again = await resources.apply({
      ...secret('openai-key', 'sk-one'),
      stringData: undefined,
      data: stored.data,
    });
    expect(again.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    const rotated = await resources.apply(secret('openai-key', 'sk-two'));
    expect(rotated.metadata.generation).toBe(2);
  });

  it('refuses an invalid object with every broken rule', async () => {
    const resources = await openResources();
    const bad = policy('docs', 0);
    bad.spec.maxTtlSeconds = 100_000;
    const error = await resources.apply(bad).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResourceValidationError);
    expect((error as ResourceValidationError).messages).toEqual([
      'spec.ttlSeconds must be between 1 and 86400, got 0',
      'spec.maxTtlSeconds must be between 1 and 86400, got 100000',
    ]);
    expect(await resources.list('CachePolicy')).toEqual([]);
  });

  it('replaces status through patchStatus and keeps it across applies', async () => {
    const resources = await openResources();
    await resources.apply(tenant());
    const status = { observedGeneration: 1, conditions: [] };
    await resources.patchStatus('Tenant', 'acme', undefined, status);
    await resources.apply(tenant('acme', 'Renamed'));
    const read = await resources.get('Tenant', 'acme');
    expect(read?.status).toEqual(status);
    expect(read?.metadata.generation).toBe(2);
    await expect(resources.patchStatus('Tenant', 'nobody', undefined, status)).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });

  it('delivers added, modified and deleted events asynchronously and in order', async () => {
    const resources = await openResources();
    const events: string[] = [];
    const unwatch = resources.watch((event) => events.push(`${event.type}:${event.resource.metadata.name}`));
    const applying = resources.apply(tenant());
    expect(events).toEqual([]);
    await applying;
    await resources.apply(tenant('acme', 'Renamed'));
    await resources.delete('Tenant', 'acme');
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(events).toEqual(['added:acme', 'modified:acme', 'deleted:acme']);
    unwatch();
    await resources.apply(tenant());
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(events).toHaveLength(3);
  });

  it('keeps everything across a reopen, in a state file only its owner can read', async () => {
    const stateFile = join(dir, 'state', 'resources.json');
    const resources = await openResources({ stateFile });
    const created = await resources.apply(tenant());
    await resources.apply(secret('openai-key', 'sk-persisted'));
    await resources.patchStatus('Tenant', 'acme', undefined, { observedGeneration: 1 });
    await resources.close();
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

    const reopened = await openResources({ stateFile });
    const read = await reopened.get('Tenant', 'acme');
    expect(read?.metadata.uid).toBe(created.metadata.uid);
    expect(read?.status).toEqual({ observedGeneration: 1 });
    const storedSecret = await reopened.get('Secret', 'openai-key', 'tenant-acme');
    expect(Buffer.from(storedSecret?.data?.apiKey ?? '', 'base64').toString()).toBe('sk-persisted');
    const next = await reopened.apply(policy('docs'));
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(read?.metadata.resourceVersion));
  });

  it('writes the state file behind the API, without waiting for close', async () => {
    const stateFile = join(dir, 'resources.json');
    const resources = await openResources({ stateFile });
    await resources.apply(tenant());
    await vi.waitFor(async () => expect(await readFile(stateFile, 'utf8')).toContain('"acme"'), {
      timeout: 5_000,
    });
  });

  it('refuses to start on a corrupt state file rather than overwrite it', async () => {
    const stateFile = join(dir, 'resources.json');
    await writeFile(stateFile, '{"version": 1, "objects": [');
    await expect(LocalResources.open({ stateFile })).rejects.toThrow();
  });
});

describe('LocalResources with a resources dir', () => {
  it('applies every document of every resource file at start', async () => {
    await writeFile(join(dir, 'acme.yaml'), YAML_FILE);
    await writeFile(
      join(dir, 'other.json'),
      JSON.stringify({ kind: 'List', items: [tenant('globex', 'Globex')] }),
    );
    await writeFile(join(dir, 'notes.txt'), 'not a resource');
    const resources = await openResources({ resourcesDir: dir });
    expect((await resources.list('Tenant')).map((item) => item.metadata.name).sort()).toEqual([
      'acme',
      'globex',
    ]);
    expect(await resources.get('CachePolicy', 'docs', 'tenant-acme')).toMatchObject({
      spec: { ttlSeconds: 120 },
    });
    const stored = await resources.get('Secret', 'openai-key', 'tenant-acme');
    expect(stored?.data?.apiKey).toBe(Buffer.from('sk-from-file').toString('base64'));
  });

  it('skips and logs invalid documents without losing the valid ones', async () => {
    const invalid = `${YAML_FILE}---\napiVersion: ${API_VERSION}\nkind: CachePolicy\nmetadata: {name: bad, namespace: tenant-acme}\nspec: {ttlSeconds: 0}\n`;
    await writeFile(join(dir, 'acme.yaml'), invalid);
    await writeFile(join(dir, 'broken.yaml'), 'kind: [unclosed');
    const resources = await openResources({ resourcesDir: dir });
    expect(await resources.get('CachePolicy', 'docs', 'tenant-acme')).toBeDefined();
    expect(await resources.get('CachePolicy', 'bad', 'tenant-acme')).toBeUndefined();
    expect(warnings).toContain('skipped invalid resource');
    expect(warnings.some((warning) => warning.startsWith('skipped unparseable YAML'))).toBe(true);
  });

  it('applies an edited file and deletes what it no longer declares', async () => {
    await writeFile(join(dir, 'acme.yaml'), YAML_FILE);
    const resources = await openResources({ resourcesDir: dir });
    const modified = nextEvent(resources, is('modified', 'CachePolicy', 'docs'));
    const deleted = nextEvent(resources, is('deleted', 'Secret', 'openai-key'));
    const edited =
      YAML_FILE.replace('ttlSeconds: 120', 'ttlSeconds: 300').split('---\napiVersion: v1')[0] ?? '';
    await writeFile(join(dir, 'acme.yaml'), edited);
    expect((await modified).resource).toMatchObject({
      spec: { ttlSeconds: 300 },
      metadata: { generation: 2 },
    });
    await deleted;
    expect(await resources.get('Secret', 'openai-key', 'tenant-acme')).toBeUndefined();
  });

  it('deletes the objects of a removed file, but never objects created through the API', async () => {
    await writeFile(join(dir, 'acme.yaml'), YAML_FILE);
    const resources = await openResources({ resourcesDir: dir });
    await resources.apply(policy('from-api'));
    // Declared by the file too, but created through the API first: the file does not own it.
    await writeFile(join(dir, 'api.yaml'), JSON.stringify(policy('from-api', 90)));
    await nextEvent(resources, is('modified', 'CachePolicy', 'from-api'));

    const tenantGone = nextEvent(resources, is('deleted', 'Tenant', 'acme'));
    await unlink(join(dir, 'acme.yaml'));
    await tenantGone;
    expect(await resources.list('CachePolicy')).toMatchObject([{ metadata: { name: 'from-api' } }]);

    let prunedFromApi = false;
    resources.watch((event) => {
      if (event.type === 'deleted' && event.resource.metadata.name === 'from-api') prunedFromApi = true;
    });
    // One rewrite both drops the policy and adds a marker: pruning would be announced right after it.
    const marker = nextEvent(resources, is('added', 'Tenant', 'marker'));
    await writeFile(join(dir, 'api.yaml'), JSON.stringify(tenant('marker', 'Marker')));
    await marker;
    expect(prunedFromApi).toBe(false);
    expect(await resources.get('CachePolicy', 'from-api', 'tenant-acme')).toMatchObject({
      spec: { ttlSeconds: 90 },
    });
  });

  it('keeps an object whose document became invalid', async () => {
    await writeFile(join(dir, 'acme.yaml'), YAML_FILE);
    const resources = await openResources({ resourcesDir: dir });
    const marker = nextEvent(resources, is('added', 'Tenant', 'marker'));
    const markerDocument = `---\n${JSON.stringify(tenant('marker', 'Marker'))}\n`;
    await writeFile(
      join(dir, 'acme.yaml'),
      YAML_FILE.replace('ttlSeconds: 120', 'ttlSeconds: -5') + markerDocument,
    );
    await marker;
    expect(warnings).toContain('skipped invalid resource');
    expect(await resources.get('CachePolicy', 'docs', 'tenant-acme')).toMatchObject({
      spec: { ttlSeconds: 120 },
    });
  });

  it('prunes at start what a file dropped while the process was down', async () => {
    const stateFile = join(dir, 'state.json');
    const resourcesDir = join(dir, 'resources');
    await mkdir(resourcesDir);
    await writeFile(join(resourcesDir, 'acme.yaml'), YAML_FILE);
    const first = await openResources({ stateFile, resourcesDir });
    await first.apply(policy('from-api'));
    await first.close();

    await writeFile(join(resourcesDir, 'acme.yaml'), YAML_FILE.split('---\napiVersion: v1')[0] ?? '');
    const second = await openResources({ stateFile, resourcesDir });
    expect(await second.get('Secret', 'openai-key', 'tenant-acme')).toBeUndefined();
    expect(await second.get('CachePolicy', 'docs', 'tenant-acme')).toBeDefined();
    expect(await second.get('CachePolicy', 'from-api', 'tenant-acme')).toBeDefined();
  });
});
