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
 * An empty variable counts as unset (MCP client configurations often carry `""` placeholders).
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
  const timeout = value('IGW_TIMEOUT_MS');
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
    problems.push('IGW_TIMEOUT_MS must be a whole number of milliseconds');
  }
  if (problems.length > 0 || url === undefined || token === undefined) throw new SettingsError(problems);
  return Object.freeze({
    url,
    token,
    adminToken: value('IGW_ADMIN_TOKEN'),
    provisioningKey: value('IGW_PROVISIONING_KEY'),
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
