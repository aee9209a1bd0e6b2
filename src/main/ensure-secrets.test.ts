import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashCredential } from '../auth/credential-hash.ts';
import type { EnsureSecretsSettings } from '../config/ensure-secrets-settings.ts';
import { loadSettings, SettingsError } from '../config/settings.ts';
import { PROVIDER_NAMES } from '../providers/registry.ts';
import { LocalResources } from '../resources/local-resources.ts';
import type { SecretResource } from '../resources/types.ts';
import { EnsureSecretsError, ensureSecrets } from './ensure-secrets.ts';

const NS = 'gateway-system';
const ALL: EnsureSecretsSettings = loadSettings(
  {
    POD_NAMESPACE: NS,
    ENSURE_ENCRYPTION_KEY_SECRET: 'ig-encryption',
    ENSURE_SIGNING_KEY_SECRET: 'ig-token-signing',
    ENSURE_ADMIN_PAT_SECRET: 'ig-admin-pat',
    ENSURE_ADMIN_PAT_TENANT: 'platform',
    ENSURE_FIRST_TENANT_SECRET: 'ig-first-tenant',
    ENSURE_FIRST_TENANT: 'first',
    ENSURE_FIRST_TENANT_WORKSPACE: 'main',
  },
  PROVIDER_NAMES,
).ensureSecrets;

function secret(name: string, namespace: string, values: Record<string, string>): SecretResource {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    stringData: values,
  };
}

describe('ensureSecrets', () => {
  let resources: LocalResources;
  const values = async (name: string, namespace: string) => {
    const found = await resources.get('Secret', name, namespace);
    if (found === undefined) return undefined;
    return Object.fromEntries(
      Object.entries(found.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
    );
  };
  const everything = async () =>
    JSON.stringify((await resources.list('Secret')).map((entry) => [entry.metadata, entry.data]));

  beforeEach(async () => {
    resources = await LocalResources.open();
  });
  afterEach(async () => {
    await resources.close();
  });

  it('creates the keys and the day-one credentials, each hash beside its plaintext', async () => {
    const ensured = await ensureSecrets(resources, NS, ALL);
    expect(ensured.map(({ namespace, name, outcome }) => `${outcome} ${namespace}/${name}`)).toEqual([
      `created ${NS}/ig-encryption`,
      `created ${NS}/ig-token-signing`,
      `created ${NS}/ig-admin-pat`,
      'created tenant-platform/admin-pat',
      `created ${NS}/ig-first-tenant`,
      'created tenant-first/first-api-key',
      'created tenant-first/first-pat',
    ]);
    expect(Buffer.from((await values('ig-encryption', NS))?.['encryption-key'] ?? '', 'base64')).toHaveLength(
      32,
    );
    expect((await values('ig-token-signing', NS))?.['signing-key']).toMatch(/^[A-Za-z0-9_-]{48}$/);
    const admin = await values('ig-admin-pat', NS);
    const adminHash = await values('admin-pat', 'tenant-platform');
    expect(adminHash).toMatchObject({
      id: admin?.id,
      hash: hashCredential(admin?.token ?? ''),
      admin: 'true',
    });
    const first = await values('ig-first-tenant', NS);
    expect(first).toMatchObject({ tenant: 'first', workspace: 'main' });
    expect(await values('first-api-key', 'tenant-first')).toMatchObject({
      id: first?.apiKeyId,
      hash: hashCredential(first?.apiKey ?? ''),
      workspace: 'main',
      grants: 'chat:write,embed',
    });
    expect(await values('first-pat', 'tenant-first')).toMatchObject({
      id: first?.patId,
      hash: hashCredential(first?.pat ?? ''),
      admin: 'false',
    });
    const keySecret = await resources.get('Secret', 'first-pat', 'tenant-first');
    expect(keySecret?.metadata.labels?.['gateway.service.io/credential']).toBe('pat');
  });

  it('changes nothing on a second run, nor on two runs at once', async () => {
    await Promise.all([ensureSecrets(resources, NS, ALL), ensureSecrets(resources, NS, ALL)]);
    const before = await everything();
    const again = await ensureSecrets(resources, NS, ALL);
    expect(again.every((entry) => entry.outcome === 'kept')).toBe(true);
    expect(await everything()).toBe(before);
    const first = await values('ig-first-tenant', NS);
    expect((await values('first-api-key', 'tenant-first'))?.hash).toBe(hashCredential(first?.apiKey ?? ''));
  });

  it('keeps what an earlier install made, and makes a missing key Secret from its plaintext', async () => {
    const key = 'ab'.repeat(32);
    await resources.create(secret('ig-encryption', NS, { 'encryption-key': key }));
    const token = `tt_pat_${'x'.repeat(43)}`;
    await resources.create(secret('ig-admin-pat', NS, { id: 'pat_old', token }));
    await ensureSecrets(resources, NS, ALL);
    expect((await values('ig-encryption', NS))?.['encryption-key']).toBe(key);
    expect(await values('ig-admin-pat', NS)).toEqual({ id: 'pat_old', token });
    expect(await values('admin-pat', 'tenant-platform')).toMatchObject({
      id: 'pat_old',
      hash: hashCredential(token),
      keyHint: 'tt_pat_…xxxx',
    });
  });

  it('leaves a key Secret holding another key as it is, makes the rest, and says which', async () => {
    await resources.create(secret('admin-pat', 'tenant-platform', { id: 'pat_other', hash: 'f'.repeat(64) }));
    const error = await ensureSecrets(resources, NS, ALL).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnsureSecretsError);
    expect((error as Error).message).toContain(
      `tenant-platform/admin-pat holds another key than ${NS}/ig-admin-pat`,
    );
    expect(await values('admin-pat', 'tenant-platform')).toEqual({ id: 'pat_other', hash: 'f'.repeat(64) });
    expect(await values('first-pat', 'tenant-first')).toBeDefined();
    // Never a plaintext in the message.
    expect((error as Error).message).not.toContain((await values('ig-admin-pat', NS))?.token);
  });

  it('does nothing when nothing is named', async () => {
    const none = loadSettings({}, PROVIDER_NAMES).ensureSecrets;
    expect(await ensureSecrets(resources, NS, none)).toEqual([]);
    expect(await resources.list('Secret')).toEqual([]);
  });

  it('refuses half a credential setting and the same tenant twice', () => {
    expect(() => loadSettings({ ENSURE_ADMIN_PAT_SECRET: 'ig-admin-pat' }, PROVIDER_NAMES)).toThrow(
      new SettingsError('ENSURE_ADMIN_PAT_SECRET and ENSURE_ADMIN_PAT_TENANT must be set together'),
    );
    expect(() =>
      loadSettings(
        {
          ENSURE_ADMIN_PAT_SECRET: 'a',
          ENSURE_ADMIN_PAT_TENANT: 'platform',
          ENSURE_FIRST_TENANT_SECRET: 'b',
          ENSURE_FIRST_TENANT: 'platform',
          ENSURE_FIRST_TENANT_WORKSPACE: 'main',
        },
        PROVIDER_NAMES,
      ),
    ).toThrow('ENSURE_FIRST_TENANT must differ from ENSURE_ADMIN_PAT_TENANT');
  });
});
