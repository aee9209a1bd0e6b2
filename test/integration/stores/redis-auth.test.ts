/**
 * The data nodes' password apart from the URL (REDIS_PASSWORD, as the chart gives it from its own
 * Secret): against a real redis-server with `requirepass`, the stores connect with it, and it wins
 * over a password in REDIS_URL.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/settings.ts';
import { redisConnectionOf } from '../../../src/main/open-stores.ts';
import { closeRedisClient, createRedisClient } from '../../../src/stores/redis-client.ts';
import { findFreePort, findOnPath, killRedis, spawnRedis } from '../../helpers/redis-server.ts';

const PASSWORD = 'data node password with spaces';
const binary = findOnPath('redis-server');
if (binary === undefined && process.env.REQUIRE_REDIS === '1')
  throw new Error('redis-server is required (REQUIRE_REDIS=1) but is not on PATH');

describe.runIf(binary !== undefined)('a Redis that needs a password', () => {
  let server: ChildProcess;
  let directory: string;
  let port: number;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-redis-auth-'));
    port = await findFreePort();
    server = await spawnRedis(binary as string, port, directory, ['--requirepass', PASSWORD]);
  });
  afterAll(async () => {
    if (server) await killRedis(server);
    await rm(directory, { recursive: true, force: true });
  });

  const ping = async (env: Record<string, string>) => {
    const options = redisConnectionOf(loadSettings(env, ['openai']));
    if (options === undefined) throw new Error('no Redis connection');
    const client = createRedisClient({ ...options, commandTimeoutMs: 2000 }, 'auth-test');
    try {
      return await client.ping();
    } catch (error) {
      return (error as Error).message.split(' ')[0];
    } finally {
      await closeRedisClient(client);
    }
  };

  it('connects with REDIS_PASSWORD, which wins over the url', async () => {
    expect(await ping({ REDIS_URL: `redis://127.0.0.1:${port}` })).toBe('NOAUTH');
    expect(await ping({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PASSWORD: PASSWORD })).toBe('PONG');
    expect(await ping({ REDIS_URL: `redis://:stale@127.0.0.1:${port}`, REDIS_PASSWORD: PASSWORD })).toBe(
      'PONG',
    );
    expect(await ping({ REDIS_URL: `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}` })).toBe(
      'PONG',
    );
  });
});
