import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCP_SERVER_VERSION, readSettings, SettingsError, serverOptionsFromSettings } from '../src/index.ts';

describe('readSettings', () => {
  it('reads the URL, the PAT and the optional admin token, provisioning key and timeout', () => {
    expect(
      readSettings({
        IGW_URL: 'http://127.0.0.1:8081',
        IGW_TOKEN: ' tt_pat_x ',
        IGW_ADMIN_TOKEN: 'tt_pat_admin',
        IGW_PROVISIONING_KEY: 'tt_prov_x',
        IGW_TIMEOUT_MS: '5000',
      }),
    ).toEqual({
      url: 'http://127.0.0.1:8081',
      token: 'tt_pat_x',
      adminToken: 'tt_pat_admin',
      provisioningKey: 'tt_prov_x',
      timeoutMs: 5000,
    });
  });

  it('treats empty variables as unset, and returns a frozen object', () => {
    const settings = readSettings({
      IGW_URL: 'https://cp.example',
      IGW_TOKEN: 'tt_pat_t',
      IGW_ADMIN_TOKEN: '',
      IGW_PROVISIONING_KEY: ' ',
    });
    expect(settings).toMatchObject({
      adminToken: undefined,
      provisioningKey: undefined,
      timeoutMs: undefined,
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('names every problem at once', () => {
    let error: unknown;
    try {
      readSettings({ IGW_URL: 'ftp://x', IGW_TIMEOUT_MS: 'soon' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      'IGW_URL must be an http(s) URL',
      'IGW_TOKEN is required (a personal access token, tt_pat_...)',
      'IGW_TIMEOUT_MS must be a whole number of milliseconds',
    ]);
    expect(() => readSettings({})).toThrow(/IGW_URL is required/);
  });

  it('refuses a workspace API key as IGW_TOKEN, saying what it is and what is needed, never the value', () => {
    const key = 'tt_sk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    let error: unknown;
    try {
      readSettings({ IGW_URL: 'http://127.0.0.1:8081', IGW_TOKEN: key });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      "IGW_TOKEN holds a workspace API key (tt_sk_...), but it needs a personal access token (tt_pat_...): a workspace API key is for the gateway's inference API (/v1), not the control plane",
    ]);
    expect((error as SettingsError).message).not.toContain(key.slice('tt_sk_'.length));
  });

  it('refuses any credential of the wrong kind in each credential variable', () => {
    let error: unknown;
    try {
      readSettings({
        IGW_URL: 'http://127.0.0.1:8081',
        IGW_TOKEN: 'tt_prov_secret-one',
        IGW_ADMIN_TOKEN: 'tt_ev_secret-two',
        IGW_PROVISIONING_KEY: 'tt_pat_secret-three',
      });
    } catch (caught) {
      error = caught;
    }
    expect((error as SettingsError).problems).toEqual([
      'IGW_TOKEN holds a provisioning key (tt_prov_...), but it needs a personal access token (tt_pat_...): a provisioning key goes in IGW_PROVISIONING_KEY',
      "IGW_ADMIN_TOKEN holds an ephemeral token (tt_ev_...), but it needs a personal access token (tt_pat_...): an ephemeral token is for the gateway's inference API (/v1), not the control plane",
      'IGW_PROVISIONING_KEY holds a personal access token (tt_pat_...), but it needs a provisioning key (tt_prov_...): a personal access token goes in IGW_TOKEN or IGW_ADMIN_TOKEN',
    ]);
    expect((error as SettingsError).message).not.toMatch(/secret-/);
    expect(() =>
      readSettings({ IGW_URL: 'http://127.0.0.1:8081', IGW_TOKEN: 'sk-proj-an-openai-key-0123' }),
    ).toThrow(/^invalid configuration: IGW_TOKEN must be a personal access token \(tt_pat_\.\.\.\)$/);
  });
});

describe('serverOptionsFromSettings', () => {
  const base = { url: 'http://cp.test', token: 'tt_pat_tenant', timeoutMs: undefined };

  it('makes a platform admin client only with an admin token, and keeps both PATs out of results', () => {
    const plain = serverOptionsFromSettings({ ...base, adminToken: undefined, provisioningKey: undefined });
    expect(plain.platformAdmin).toBeUndefined();
    expect(plain.provisioningKey).toBeUndefined();
    expect(plain.secrets).toEqual(['tt_pat_tenant']);
    const full = serverOptionsFromSettings({
      ...base,
      adminToken: 'tt_pat_admin',
      provisioningKey: 'tt_prov_x',
    });
    expect(full.platformAdmin?.url).toBe('http://cp.test');
    expect(full.provisioningKey).toBe('tt_prov_x');
    expect(full.secrets).toEqual(['tt_pat_tenant', 'tt_pat_admin']);
  });

  it('never exposes a token by serialising the clients', () => {
    const options = serverOptionsFromSettings({
      ...base,
      adminToken: 'tt_pat_admin',
      provisioningKey: undefined,
    });
    expect(JSON.stringify([options.admin, options.platformAdmin])).not.toMatch(/tt_pat_/);
  });
});

describe('MCP_SERVER_VERSION', () => {
  it("is package.json's version", () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(MCP_SERVER_VERSION).toBe(manifest.version);
  });
});
