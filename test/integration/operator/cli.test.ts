/**
 * The real `operator` role: `node src/main/cli.ts operator` with KUBECONFIG, REDIS_URL and
 * SERVICE_ENCRYPTION_KEY reconciles into Redis, answers its probes, and on SIGTERM releases the
 * Lease and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../helpers/redis-server.ts';
import {
  cachePolicy,
  type OperatorTestBed,
  operatorSuitesAvailable,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const CLI = join(import.meta.dirname, '../../../src/main/cli.ts');

describe.runIf(available)('the operator CLI role', () => {
  let bed: OperatorTestBed;
  let child: ChildProcess;
  let output = '';
  let port: number;

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    port = await findFreePort();
    child = spawn(process.execPath, [CLI, 'operator'], {
      env: {
        PATH: process.env.PATH,
        KUBECONFIG: bed.plane.kubeconfigPath,
        REDIS_URL: bed.redis.url,
        SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
        OPERATOR_NAMESPACE: 'gateway-system',
        OPERATOR_LEASE_NAME: 'cli-operator',
        OPERATOR_IDENTITY: 'cli-replica-0',
        OPERATOR_PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await bed?.close();
  });

  it('refuses to start without REDIS_URL or SERVICE_ENCRYPTION_KEY', async () => {
    const missing = spawn(process.execPath, [CLI, 'operator'], {
      env: { PATH: process.env.PATH, KUBECONFIG: bed.plane.kubeconfigPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    missing.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise((resolve) => missing.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('REDIS_URL');
  });

  it('reconciles into Redis and answers its probes', async () => {
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status, {
        timeout: 15_000,
      })
      .toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await bed.applyTenant(tenant('cli'));
    await bed.apply(cachePolicy('default', 'tenant-cli', { ttlSeconds: 42 }));
    await expect
      .poll(() => bed.store.get('cachePolicy', 'cli/*/default'), { timeout: 15_000 })
      .toMatchObject({ ttlSeconds: 42 });
    expect(output).toContain('became the leader');
  });

  it('releases the Lease and exits 0 on SIGTERM', async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lease = await bed.plane.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/gateway-system/leases/cli-operator',
    );
    expect((lease.body as { spec: { holderIdentity?: string } }).spec.holderIdentity ?? '').toBe('');
    expect(output).toContain('released the lease');
  });
});
