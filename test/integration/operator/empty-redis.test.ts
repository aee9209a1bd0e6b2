/**
 * A Redis that comes back empty (flushed, or restarted without persistence) with the operator
 * running against a real API server: a warm gateway keeps serving from its last-known view (a
 * valid key never becomes 401), and a gateway started on the empty store answers 503 and is not
 * ready until the operator has rebuilt it, then serves. Clients read 401 as "your key is wrong"
 * and do not retry; 503 they retry.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { loadSettings } from '../../../src/config/settings.ts';
import { type RunningGateway, startGateway } from '../../../src/main/gateway-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();

describe.runIf(available)('an emptied Redis', () => {
  let bed: OperatorTestBed;
  let upstream: FakeServer;
  const gateways: RunningGateway[] = [];
  const apiKey = generateCredential('tt_sk_');

  const start = async () => {
    const gateway = await startGateway(
      loadSettings(
        {
          HOST: '127.0.0.1',
          GATEWAY_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: bed.encryptionKey.toString('hex'),
          OPENAI_API_KEY: 'sk-platform',
          OPENAI_BASE_URL: `${upstream.url}/v1`,
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'gateway'),
    );
    gateways.push(gateway);
    return gateway;
  };
  const ask = (gateway: RunningGateway) =>
    postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
      apiKey.plaintext,
      { 'x-service-cache': 'off' },
    );

  let operator: OperatorHandle;

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    upstream = await startFakeOpenAi();
    operator = await bed.startOperator();
    await bed.applyTenant(tenant('globex'));
    await bed.apply(
      secret(
        'workspace-key',
        'tenant-globex',
        { id: apiKey.id, hash: apiKey.hash, workspace: 'main' },
        { 'gateway.service.io/credential': 'api-key' },
      ),
    );
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await upstream?.stop();
    await bed?.close();
  });

  it('never turns a valid key into a 401, on a warm gateway or on one started while it is empty', async () => {
    const warm = await start();
    await expect.poll(async () => (await ask(warm)).status, { timeout: 10_000 }).toBe(200);

    // Keep asking the warm gateway all along.
    const warmStatuses: number[] = [];
    let asking = true;
    const warmLoop = (async () => {
      while (asking) {
        const response = await ask(warm);
        await response.text();
        warmStatuses.push(response.status);
      }
    })();

    // The operator is stopped first, so that the store stays empty while the checks run.
    await operator.stop();
    const raw = new Redis(bed.redis.url);
    await raw.flushall();
    raw.disconnect();

    // A gateway started on the empty store: 503 (retryable, coded), not ready; never 401.
    const fresh = await start();
    const refused = await ask(fresh);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'service.config_unavailable',
    );
    expect((await fetch(`${fresh.url}/readyz`)).status).toBe(503);
    // The warm gateway meanwhile serves from what it last knew.
    expect((await ask(warm)).status).toBe(200);

    // A new operator rebuilds the store; the fresh gateway then serves and is ready.
    await bed.startOperator();
    const freshStatuses: number[] = [];
    await expect
      .poll(
        async () => {
          const response = await ask(fresh);
          await response.text();
          freshStatuses.push(response.status);
          return response.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(200);
    expect((await fetch(`${fresh.url}/readyz`)).status).toBe(200);
    asking = false;
    await warmLoop;

    expect(warmStatuses.length).toBeGreaterThan(0);
    expect(warmStatuses.filter((status) => status !== 200)).toEqual([]);
    expect(freshStatuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
  });
});
