import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeSemanticCache } from './semantic-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

describeSemanticCache('Redis store', () => (redis === undefined ? undefined : { REDIS_URL: redis.url }));
