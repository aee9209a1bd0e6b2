import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './settings.ts';

const key = JSON.stringify({
  type: 'service_account',
  project_id: 'key-project',
  private_key: '-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n',
  client_email: 'sa@key-project.iam.gserviceaccount.com',
});
const load = (env: Record<string, string>) => loadSettings(env, ['openai', 'vertex']);

describe('loadSettings: the platform Vertex credential', () => {
  it('reads the key JSON, project and region', () => {
    const settings = load({
      VERTEX_SERVICE_ACCOUNT_JSON: key,
      VERTEX_PROJECT: 'p1',
      VERTEX_REGION: 'us-east5',
    });
    expect(settings.platformVertex).toEqual({ serviceAccountJson: key, project: 'p1', region: 'us-east5' });
  });

  it('reads the key file from a path, in either variable', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vertex-key-')), 'key.json');
    writeFileSync(file, key);
    expect(load({ VERTEX_SERVICE_ACCOUNT_FILE: file }).platformVertex.serviceAccountJson).toBe(key);
    expect(load({ VERTEX_SERVICE_ACCOUNT_JSON: file }).platformVertex.serviceAccountJson).toBe(key);
  });

  it('is empty when nothing is set', () => {
    expect(load({}).platformVertex).toEqual({});
  });

  it('refuses unusable keys and regions at start', () => {
    expect(() => load({ VERTEX_SERVICE_ACCOUNT_JSON: '{nope' })).toThrow(SettingsError);
    expect(() => load({ VERTEX_SERVICE_ACCOUNT_JSON: '{"client_email":"a"}' })).toThrow(/private_key/);
    expect(() => load({ VERTEX_SERVICE_ACCOUNT_FILE: '/no/such/key.json' })).toThrow(/cannot be read/);
    expect(() =>
      load({ VERTEX_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...JSON.parse(key), project_id: undefined }) }),
    ).toThrow(/VERTEX_PROJECT/);
    expect(() => load({ VERTEX_REGION: 'US Central' })).toThrow(/VERTEX_REGION/);
  });
});
