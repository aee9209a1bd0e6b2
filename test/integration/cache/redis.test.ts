import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeCache } from './cache-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

describeCache('Redis store', () => (redis === undefined ? undefined : { REDIS_URL: redis.url }));
