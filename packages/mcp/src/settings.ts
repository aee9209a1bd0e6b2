/**
 * The server's configuration, read once from the environment at start:
 *
 * - `IGW_URL` (required): the control plane's base URL (standalone: http://127.0.0.1:8081).
 * - `IGW_TOKEN` (required): a personal access token (`tt_pat_...`) of the tenant; its permissions
 *   decide which tools succeed.
 * - `IGW_ADMIN_TOKEN`: a platform-admin PAT; adds the platform admin's tools.
 * - `IGW_PROVISIONING_KEY`: a provisioning key (`tt_prov_...`); adds `provision_tenant`.
 * - `IGW_TIMEOUT_MS`: the timeout of each control-plane call (default 60000).
 *
 * An empty variable counts as unset (MCP client configurations often carry `""` placeholders). A
 * credential of the wrong kind is refused at start, never sent: the control plane takes only a
 * `tt_pat_` on its GraphQL endpoints and only a `tt_prov_` for provisioning, so a workspace API key
 * (`tt_sk_`) in IGW_TOKEN would only fail every tool call, later and less clearly.
 */
import { AdminClient, type FetchLike, PlatformAdminClient } from '@inference-gateway/admin';
import type { GatewayMcpServerOptions } from './server.ts';

export interface McpSettings {
  url: string;
  token: string;
  adminToken: string | undefined;
  provisioningKey: string | undefined;
  timeoutMs: number | undefined;
}

/** The environment does not describe a usable configuration; the message lists every problem. */
export class SettingsError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
    this.name = 'SettingsError';
  }
}

interface CredentialKind {
  prefix: string;
  what: string;
  /** Where such a credential belongs, for the message when it is in the wrong variable. */
  belongs: string;
}

const PAT: CredentialKind = {
  prefix: 'tt_pat_',
  what: 'a personal access token',
  belongs: 'a personal access token goes in IGW_TOKEN or IGW_ADMIN_TOKEN',
};
const PROVISIONING_KEY: CredentialKind = {
  prefix: 'tt_prov_',
  what: 'a provisioning key',
  belongs: 'a provisioning key goes in IGW_PROVISIONING_KEY',
};
const CREDENTIAL_KINDS: readonly CredentialKind[] = [
  PAT,
  PROVISIONING_KEY,
  {
    prefix: 'tt_sk_',
    what: 'a workspace API key',
    belongs: "a workspace API key is for the gateway's inference API (/v1), not the control plane",
  },
  {
    prefix: 'tt_ev_',
    what: 'an ephemeral token',
    belongs: "an ephemeral token is for the gateway's inference API (/v1), not the control plane",
  },
];

/** Why a credential variable's value cannot work, or undefined; never repeats the value. */
function credentialProblem(name: string, value: string, expected: CredentialKind): string | undefined {
  if (value.startsWith(expected.prefix)) return undefined;
  const wanted = `${expected.what} (${expected.prefix}...)`;
  const found = CREDENTIAL_KINDS.find((kind) => value.startsWith(kind.prefix));
  if (found === undefined) return `${name} must be ${wanted}`;
  return `${name} holds ${found.what} (${found.prefix}...), but it needs ${wanted}: ${found.belongs}`;
}

export function readSettings(env: Readonly<Record<string, string | undefined>>): Readonly<McpSettings> {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  const problems: string[] = [];
  const url = value('IGW_URL');
  if (url === undefined) problems.push('IGW_URL is required (the control plane, e.g. http://127.0.0.1:8081)');
  else if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) problems.push('IGW_URL must be an http(s) URL');
  const token = value('IGW_TOKEN');
  if (token === undefined) problems.push('IGW_TOKEN is required (a personal access token, tt_pat_...)');
  const adminToken = value('IGW_ADMIN_TOKEN');
  const provisioningKey = value('IGW_PROVISIONING_KEY');
  for (const [name, credential, kind] of [
    ['IGW_TOKEN', token, PAT],
    ['IGW_ADMIN_TOKEN', adminToken, PAT],
    ['IGW_PROVISIONING_KEY', provisioningKey, PROVISIONING_KEY],
  ] as const) {
    const problem = credential === undefined ? undefined : credentialProblem(name, credential, kind);
    if (problem !== undefined) problems.push(problem);
  }
  const timeout = value('IGW_TIMEOUT_MS');
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
    problems.push('IGW_TIMEOUT_MS must be a whole number of milliseconds');
  }
  if (problems.length > 0 || url === undefined || token === undefined) throw new SettingsError(problems);
  return Object.freeze({
    url,
    token,
    adminToken,
    provisioningKey,
    timeoutMs,
  });
}

/** The clients and options of `createGatewayMcpServer` for these settings (`fetch` for tests). */
export function serverOptionsFromSettings(settings: McpSettings, fetch?: FetchLike): GatewayMcpServerOptions {
  const connection = {
    url: settings.url,
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    ...(fetch === undefined ? {} : { fetch }),
  };
  return {
    admin: new AdminClient({ ...connection, token: settings.token }),
    platformAdmin:
      settings.adminToken === undefined
        ? undefined
        : new PlatformAdminClient({ ...connection, token: settings.adminToken }),
    provisioningKey: settings.provisioningKey,
    secrets: [settings.token, ...(settings.adminToken === undefined ? [] : [settings.adminToken])],
  };
}
