import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectionKeyHint } from '../../../src/auth/credential-hash.ts';
import { unsealSecret } from '../../../src/auth/secret-box.ts';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import type { ConnectionRecord } from '../../../src/stores/records.ts';
import {
  cachePolicy,
  condition,
  connection,
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const FINALIZER = 'gateway.service.io/finalizer';
const API_KEY = 'sk-proj-PLAINTEXT-never-leaves-the-secret-0001';
const ROTATED_KEY = 'sk-proj-PLAINTEXT-rotated-key-value-0002';
const AWS_SECRET = 'aws-PLAINTEXT-secret-access-key-0003';
const PLAINTEXTS = [API_KEY, ROTATED_KEY, AWS_SECRET];
const HASH = createHash('sha256').update('tt_sk_example').digest('hex');

describe.runIf(available)('the operator against a real API server and Redis', () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;
  const ns = 'tenant-acme';

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    operator = await bed.startOperator();
    await vi.waitFor(() => expect(operator.isLeader()).toBe(true), { timeout: 10_000 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('creates the tenant namespace and publishes the tenant, its workspaces and key hashes', async () => {
    await bed.apply(
      tenant('acme', [
        { id: 'main', name: 'Main' },
        { id: 'staging', name: 'Staging' },
      ]),
    );
    await expect.poll(() => bed.read('Namespace', ns), { timeout: 10_000 }).toBeDefined();
    const namespace = await bed.read('Namespace', ns);
    expect(namespace?.metadata.labels).toMatchObject({ 'gateway.service.io/tenant': 'acme' });
    await bed.apply(
      secret(
        'key-1',
        ns,
        { id: 'key_1', hash: HASH, workspace: 'main', grants: 'chat:write' },
        { 'gateway.service.io/credential': 'api-key' },
      ),
    );
    await expect
      .poll(() => bed.store.get('apiKey', 'key_1'), { timeout: 10_000 })
      .toMatchObject({
        tenantId: 'acme',
        workspaceId: 'main',
        hash: HASH,
        grants: ['chat:write'],
      });
    expect(await bed.store.get('tenant', 'acme')).toMatchObject({
      displayName: 'Tenant acme',
      workspaces: [
        { id: 'main', name: 'Main' },
        { id: 'staging', name: 'Staging' },
      ],
    });
    const object = await bed.read('Tenant', 'acme');
    expect(object?.metadata.finalizers).toContain(FINALIZER);
    await expect
      .poll(async () => condition(await bed.read('Tenant', 'acme'), 'Ready'), { timeout: 10_000 })
      .toMatchObject({ status: 'True', reason: 'Published', observedGeneration: 1 });
  });

  it('publishes a CachePolicy at tenant and workspace scope, updates and removes it', async () => {
    await bed.apply(
      cachePolicy('default', ns, { ttlSeconds: 600, maxTtlSeconds: 3600, defaultTags: ['docs'] }),
    );
    await bed.apply(
      cachePolicy('default-main', ns, { policyName: 'default', workspace: 'main', ttlSeconds: 300 }),
    );
    await expect
      .poll(() => bed.store.get('cachePolicy', 'acme/*/default'), { timeout: 10_000 })
      .toMatchObject({ ttlSeconds: 600, defaultTags: ['docs'] });
    await expect
      .poll(() => bed.store.get('cachePolicy', 'acme/main/default'), { timeout: 10_000 })
      .toMatchObject({ workspaceId: 'main', ttlSeconds: 300 });
    await expect
      .poll(async () => condition(await bed.read('CachePolicy', 'default-main', ns), 'Ready'), {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'True', reason: 'Published' });

    await bed.apply(
      cachePolicy('default', ns, { ttlSeconds: 120, maxTtlSeconds: 3600, defaultTags: ['docs'] }),
    );
    await expect
      .poll(() => bed.store.get('cachePolicy', 'acme/*/default'), { timeout: 10_000 })
      .toMatchObject({ ttlSeconds: 120 });
    await expect
      .poll(async () => (await bed.read('CachePolicy', 'default', ns))?.status?.observedGeneration, {
        timeout: 10_000,
      })
      .toBe(2);

    // Moving the policy to another workspace moves its record: the new one is written before the old
    // one is deleted (publishRecords), so the old one's removal is awaited too.
    await bed.apply(
      cachePolicy('default-main', ns, { policyName: 'default', workspace: 'staging', ttlSeconds: 300 }),
    );
    await expect
      .poll(() => bed.store.get('cachePolicy', 'acme/staging/default'), { timeout: 10_000 })
      .toBeDefined();
    await expect
      .poll(() => bed.store.get('cachePolicy', 'acme/main/default'), { timeout: 10_000 })
      .toBeUndefined();

    await bed.remove('CachePolicy', 'default-main', ns);
    await expect.poll(() => bed.read('CachePolicy', 'default-main', ns), { timeout: 10_000 }).toBeUndefined();
    expect(await bed.store.get('cachePolicy', 'acme/staging/default')).toBeUndefined();
    expect(await bed.store.get('cachePolicy', 'acme/*/default')).toBeDefined();
  });

  it('reports a CachePolicy of an unknown workspace as not Ready', async () => {
    await bed.apply(cachePolicy('ghost-ws', ns, { workspace: 'nope' }));
    await expect
      .poll(async () => condition(await bed.read('CachePolicy', 'ghost-ws', ns), 'Ready'), {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'False', reason: 'UnknownWorkspace' });
    await bed.remove('CachePolicy', 'ghost-ws', ns);
  });

  it('seals a Connection secret into the store, sets keyHint and SecretResolved, follows rotation', async () => {
    await bed.apply(secret('openai-key', ns, { apiKey: API_KEY }));
    await bed.apply(
      connection('openai', ns, { provider: 'openai', secretRef: { name: 'openai-key' }, dailyCapMicros: 5 }),
    );
    await expect
      .poll(() => bed.store.get('connection', 'acme/openai'), { timeout: 10_000 })
      .toMatchObject({ slug: 'openai', provider: 'openai', keyHint: connectionKeyHint({ apiKey: API_KEY }) });
    const record = (await bed.store.get('connection', 'acme/openai')) as ConnectionRecord;
    expect(unsealSecret(bed.encryptionKey, record.sealedSecret)).toEqual({ apiKey: API_KEY });

    await expect
      .poll(async () => (await bed.read('Connection', 'openai', ns))?.status, { timeout: 10_000 })
      .toMatchObject({ keyHint: connectionKeyHint({ apiKey: API_KEY }), observedGeneration: 1 });
    const object = await bed.read('Connection', 'openai', ns);
    expect(condition(object, 'Ready')).toMatchObject({ status: 'True', reason: 'Published' });
    expect(condition(object, 'SecretResolved')).toMatchObject({ status: 'True', reason: 'Resolved' });
    expect(object?.metadata.finalizers).toContain(FINALIZER);

    // Rotating the key in the Secret re-seals it (the Connection itself does not change).
    await bed.apply(secret('openai-key', ns, { apiKey: ROTATED_KEY }));
    await expect
      .poll(async () => (await bed.store.get('connection', 'acme/openai'))?.keyHint, { timeout: 10_000 })
      .toBe(connectionKeyHint({ apiKey: ROTATED_KEY }));
    const rotated = (await bed.store.get('connection', 'acme/openai')) as ConnectionRecord;
    expect(unsealSecret(bed.encryptionKey, rotated.sealedSecret)).toEqual({ apiKey: ROTATED_KEY });
    await expect
      .poll(async () => (await bed.read('Connection', 'openai', ns))?.status?.keyHint, { timeout: 10_000 })
      .toBe(connectionKeyHint({ apiKey: ROTATED_KEY }));
  });

  it('says why a Connection secret does not resolve, and unpublishes it', async () => {
    await bed.apply(
      connection('bedrock', ns, { provider: 'bedrock', awsRegion: 'us-east-1', secretRef: { name: 'aws' } }),
    );
    await expect
      .poll(async () => condition(await bed.read('Connection', 'bedrock', ns), 'SecretResolved'), {
        timeout: 10_000,
      })
      .toMatchObject({
        status: 'False',
        reason: 'SecretNotFound',
        message: "Secret 'aws' not found in namespace 'tenant-acme'",
      });
    expect(condition(await bed.read('Connection', 'bedrock', ns), 'Ready')).toMatchObject({
      status: 'False',
    });

    await bed.apply(secret('aws', ns, { awsSecretAccessKey: AWS_SECRET }));
    await expect
      .poll(async () => condition(await bed.read('Connection', 'bedrock', ns), 'SecretResolved'), {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'False', reason: 'KeyMissing' });
    expect((await bed.read('Connection', 'bedrock', ns))?.status?.keyHint).toBeUndefined();
    expect(await bed.store.get('connection', 'acme/bedrock')).toBeUndefined();

    await bed.apply(
      secret('aws', ns, { awsAccessKeyId: 'AKIAIOSFODNN7EXAMPLE', awsSecretAccessKey: AWS_SECRET }),
    );
    await expect
      .poll(() => bed.store.get('connection', 'acme/bedrock'), { timeout: 10_000 })
      .toMatchObject({
        provider: 'bedrock',
        awsRegion: 'us-east-1',
      });
    await expect
      .poll(async () => condition(await bed.read('Connection', 'bedrock', ns), 'Ready'), { timeout: 10_000 })
      .toMatchObject({ status: 'True' });

    // The Secret goes away: the connection leaves the store and says so.
    await bed.remove('Secret', 'aws', ns);
    await expect.poll(() => bed.store.get('connection', 'acme/bedrock'), { timeout: 10_000 }).toBeUndefined();
    await expect
      .poll(async () => condition(await bed.read('Connection', 'bedrock', ns), 'Ready'), { timeout: 10_000 })
      .toMatchObject({ status: 'False', reason: 'SecretNotFound' });
  });

  it('says a Connection Secret of a type the operator never reads is not supported, naming the type', async () => {
    await bed.apply({
      ...secret('tls-key', ns, { 'tls.crt': 'not-a-certificate', 'tls.key': 'not-a-key', apiKey: API_KEY }),
      type: 'kubernetes.io/tls',
    });
    await bed.apply(connection('tls-typed', ns, { provider: 'openai', secretRef: { name: 'tls-key' } }));
    const message =
      "Secret 'tls-key' has type kubernetes.io/tls, which the operator never reads (a type Kubernetes or Helm keeps for itself); put the keys in a Secret of type Opaque";
    await expect
      .poll(async () => condition(await bed.read('Connection', 'tls-typed', ns), 'SecretResolved'), {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'False', reason: 'SecretTypeNotSupported', message });
    expect(condition(await bed.read('Connection', 'tls-typed', ns), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SecretTypeNotSupported',
      message,
    });

    // The type of a Secret cannot change: made again as Opaque, it resolves.
    await bed.remove('Secret', 'tls-key', ns);
    await bed.apply(secret('tls-key', ns, { apiKey: API_KEY }));
    await expect
      .poll(async () => condition(await bed.read('Connection', 'tls-typed', ns), 'Ready'), {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'True' });
    await bed.remove('Connection', 'tls-typed', ns);
  });

  it('lets the older of two Connections with one slug win', async () => {
    await bed.apply(
      connection('second', ns, { provider: 'openai', slug: 'openai', secretRef: { name: 'openai-key' } }),
    );
    await expect
      .poll(async () => condition(await bed.read('Connection', 'second', ns), 'Ready'), { timeout: 10_000 })
      .toMatchObject({ status: 'False', reason: 'SlugConflict' });
    await bed.remove('Connection', 'second', ns);
    await expect.poll(() => bed.read('Connection', 'second', ns), { timeout: 10_000 }).toBeUndefined();
    expect(await bed.store.get('connection', 'acme/openai')).toBeDefined();
  });

  it('removes a deleted Connection from the store before releasing its finalizer', async () => {
    await bed.remove('Connection', 'bedrock', ns);
    await bed.remove('Connection', 'openai', ns);
    await expect.poll(() => bed.read('Connection', 'openai', ns), { timeout: 10_000 }).toBeUndefined();
    expect(await bed.store.get('connection', 'acme/openai')).toBeUndefined();
  });

  it('never shows a secret in plaintext: not in Redis, status, events or logs', async () => {
    await operator.settled();
    const places = {
      redis: await bed.redisDump(),
      api: await bed.apiDump(),
      logs: bed.logs.join(''),
    };
    expect(places.redis.length).toBeGreaterThan(0);
    expect(places.logs.length).toBeGreaterThan(0);
    expect(places.api).toContain('"reason":"Published"');
    for (const [place, text] of Object.entries(places)) {
      for (const plaintext of PLAINTEXTS)
        expect(text.includes(plaintext), `${plaintext} in ${place}`).toBe(false);
    }
  });

  it('removes every record of a deleted Tenant', async () => {
    await bed.apply(secret('openai-key', ns, { apiKey: API_KEY }));
    await bed.apply(connection('late', ns, { provider: 'openai', secretRef: { name: 'openai-key' } }));
    await expect.poll(() => bed.store.get('connection', 'acme/late'), { timeout: 10_000 }).toBeDefined();
    await bed.remove('Tenant', 'acme');
    await expect.poll(() => bed.read('Tenant', 'acme'), { timeout: 10_000 }).toBeUndefined();
    expect(await bed.store.get('tenant', 'acme')).toBeUndefined();
    expect(await bed.store.get('apiKey', 'key_1')).toBeUndefined();
    expect(await bed.store.get('cachePolicy', 'acme/*/default')).toBeUndefined();
    expect(await bed.store.get('connection', 'acme/late')).toBeUndefined();
    await expect
      .poll(async () => condition(await bed.read('Connection', 'late', ns), 'Ready'), { timeout: 10_000 })
      .toMatchObject({ status: 'False', reason: 'UnknownTenant' });
  });
});
