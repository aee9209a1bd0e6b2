/**
 * Starts the real standalone service in-process on free loopback ports, with a fresh STATE_DIR,
 * and reads the bootstrap credentials it wrote. Tests talk to it over HTTP.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/settings.ts';
import type { BootstrapCredentials } from '../../src/main/bootstrap.ts';
import { type RunningStandalone, startStandalone } from '../../src/main/standalone.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../src/providers/registry.ts';

export interface TestGateway {
  url: string;
  controlUrl: string;
  credentials: BootstrapCredentials;
  stateDir: string;
  running: RunningStandalone;
  /** Stops the service; the state directory is kept when `keepState` (for restart tests). */
  stop(options?: { keepState?: boolean }): Promise<void>;
}

export interface TestGatewayOptions {
  /** Receives every log line (JSON) of the service, at LOG_LEVEL (default: TEST_LOG_LEVEL or silent). */
  logLines?: string[];
}

export async function startTestGateway(
  env: Record<string, string> = {},
  stateDir?: string,
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const dir = stateDir ?? (await mkdtemp(join(tmpdir(), 'gateway-test-')));
  const bootstrapFile = join(dir, 'bootstrap.json');
  const settings = loadSettings(
    {
      HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      CONTROL_PORT: '0',
      STATE_DIR: dir,
      BOOTSTRAP_FILE: bootstrapFile,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // Off unless a suite is about the cache: other suites repeat identical requests on purpose.
      GATEWAY_CACHE: 'off',
      // The embedding model only where a suite is about semantic matching (it takes a worker and ~200 MiB).
      GATEWAY_SEMCACHE: 'off',
      ...env,
    },
    PROVIDER_NAMES,
  );
  const lines = options.logLines;
  const destination =
    lines === undefined
      ? undefined
      : {
          write(line: string) {
            lines.push(line);
          },
        };
  const running = await startStandalone(settings, createLogger(settings.logLevel, 'test', destination), {
    announce: () => {},
  });
  const credentials = JSON.parse(await readFile(bootstrapFile, 'utf8')) as BootstrapCredentials;
  return {
    url: running.gatewayUrl,
    controlUrl: running.controlUrl,
    credentials,
    stateDir: dir,
    running,
    async stop(options = {}) {
      await running.close();
      if (!options.keepState) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** POSTs JSON to the gateway with a bearer credential. */
export async function postJson(
  url: string,
  body: unknown,
  credential?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
