/**
 * Where the control plane is and who calls it. Each setting comes from the first of:
 *
 * 1. flags: `--url`, and the token from `--token-file <path>` or `--token-stdin` (never the token
 *    itself: argv is visible to every process on the machine);
 * 2. the environment: `IGW_URL`, `IGW_TOKEN`;
 * 3. the config file: `--config <path>`, else `IGW_CONFIG`, else `$XDG_CONFIG_HOME/igw/config.json`
 *    or `~/.config/igw/config.json`; JSON `{ "url": "...", "token": "..." }`.
 *
 * A token is not read from a config file that group or others may read (`chmod 600` it), as ssh
 * refuses a private key with loose permissions.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MissingCredentialError, UsageError } from './errors.ts';
import type { SecretReader } from './secrets.ts';

/** The global flags that configure a run. */
export interface ConfigFlags {
  url?: string | undefined;
  tokenFile?: string | undefined;
  tokenStdin?: boolean | undefined;
  config?: string | undefined;
}

/** Where the config file is, and whether the user named it (then it must exist). */
export interface ConfigFileLocation {
  path: string;
  explicit: boolean;
}

/** The config file's settings. */
export interface ConfigFile {
  path: string;
  url?: string;
  token?: string;
  /** Group or others may read the file (POSIX mode bits 077). */
  readableByOthers: boolean;
}

/** Where a resolved setting came from. */
export type ConfigSource = 'flag' | 'env' | 'file';

/** The configuration a command runs with. */
export interface ResolvedConfig {
  url: string;
  urlSource: ConfigSource;
  /** Absent when the command needs none (`orgs create`, `tenants provision`). */
  token?: string;
  tokenSource?: ConfigSource;
}

/** What `resolveConfig` reads besides the flags. */
export interface ConfigEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  homeDir?: string | undefined;
  secrets: SecretReader;
  /** POSIX permission checks apply (not on Windows). */
  posix?: boolean;
}

const URL_HELP = 'pass --url, set IGW_URL, or put "url" in the config file';
const TOKEN_HELP =
  'set IGW_TOKEN, pass --token-file <path> or --token-stdin, or put "token" in the config file';

/** A set environment variable (an empty one counts as unset). */
function envValue(env: ConfigEnvironment['env'], name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The config file's path: `--config`, `IGW_CONFIG`, or the XDG default. */
export function locateConfigFile(flags: ConfigFlags, environment: ConfigEnvironment): ConfigFileLocation {
  if (flags.config !== undefined) return { path: flags.config, explicit: true };
  const named = envValue(environment.env, 'IGW_CONFIG');
  if (named !== undefined) return { path: named, explicit: true };
  const base =
    envValue(environment.env, 'XDG_CONFIG_HOME') ??
    join(environment.homeDir ?? envValue(environment.env, 'HOME') ?? homedir(), '.config');
  return { path: join(base, 'igw', 'config.json'), explicit: false };
}

/** Reads and checks the config file; undefined when the default one does not exist. */
export async function readConfigFile(
  location: ConfigFileLocation,
  posix = process.platform !== 'win32',
): Promise<ConfigFile | undefined> {
  let text: string;
  let mode: number;
  try {
    [text, mode] = await Promise.all([
      readFile(location.path, 'utf8'),
      stat(location.path).then((stats) => stats.mode),
    ]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !location.explicit) return undefined;
    throw new UsageError(`cannot read the config file ${location.path} (${code ?? 'error'})`, 'BAD_CONFIG');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the config file ${location.path} is not valid JSON`, 'BAD_CONFIG');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`the config file ${location.path} must hold a JSON object`, 'BAD_CONFIG');
  }
  const { url, token } = parsed as Record<string, unknown>;
  for (const [name, value] of [
    ['url', url],
    ['token', token],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') {
      throw new UsageError(`"${name}" in the config file ${location.path} must be a string`, 'BAD_CONFIG');
    }
  }
  return {
    path: location.path,
    ...(typeof url === 'string' && url.trim() !== '' ? { url: url.trim() } : {}),
    ...(typeof token === 'string' && token.trim() !== '' ? { token: token.trim() } : {}),
    readableByOthers: posix && (mode & 0o077) !== 0,
  };
}

const URL_SOURCE: Record<ConfigSource, string> = { flag: '--url', env: 'IGW_URL', file: 'the config file' };

/** Checks the control plane's URL: absolute http(s), no user info (the token goes in a header). */
export function checkUrl(url: string, source: ConfigSource): string {
  const from = URL_SOURCE[source];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the control plane URL (${from}) is not an absolute URL`, 'BAD_CONFIG');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`the control plane URL (${from}) must be http or https`, 'BAD_CONFIG');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new UsageError(
      `the control plane URL (${from}) must not carry a user name or password`,
      'BAD_CONFIG',
    );
  }
  return url;
}

/**
 * The URL and (with `needsToken`) the token of a run, by precedence. The config file is read only
 * when a flag or the environment leaves something open.
 */
export async function resolveConfig(
  flags: ConfigFlags,
  environment: ConfigEnvironment,
  needsToken: boolean,
): Promise<ResolvedConfig> {
  let file: ConfigFile | undefined;
  let fileRead = false;
  const configFile = async () => {
    if (!fileRead) {
      file = await readConfigFile(locateConfigFile(flags, environment), environment.posix);
      fileRead = true;
    }
    return file;
  };

  let url: string | undefined = flags.url?.trim();
  let urlSource: ConfigSource = 'flag';
  if (url === undefined || url === '') {
    url = envValue(environment.env, 'IGW_URL');
    urlSource = 'env';
  }
  if (url === undefined) {
    url = (await configFile())?.url;
    urlSource = 'file';
  }
  if (url === undefined) throw new UsageError(`no control plane URL: ${URL_HELP}`, 'NO_URL');
  const resolved: ResolvedConfig = { url: checkUrl(url, urlSource), urlSource };
  if (!needsToken) return resolved;

  const fromFlag = await environment.secrets.read({
    what: 'the token',
    stdin: flags.tokenStdin,
    stdinFlag: '--token-stdin',
    file: flags.tokenFile,
    fileFlag: '--token-file',
  });
  if (fromFlag !== undefined) return { ...resolved, token: fromFlag, tokenSource: 'flag' };
  const fromEnv = envValue(environment.env, 'IGW_TOKEN');
  if (fromEnv !== undefined) return { ...resolved, token: fromEnv, tokenSource: 'env' };
  const fromFile = await configFile();
  if (fromFile?.token !== undefined) {
    if (fromFile.readableByOthers) {
      throw new UsageError(
        `the config file ${fromFile.path} holds a token and is readable by group or others; run chmod 600 ${fromFile.path}`,
        'INSECURE_CONFIG',
      );
    }
    return { ...resolved, token: fromFile.token, tokenSource: 'file' };
  }
  throw new MissingCredentialError(`no token: ${TOKEN_HELP}`, 'NO_TOKEN');
}
