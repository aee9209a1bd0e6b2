import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeSemanticCache } from './semantic-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

// On Redis with every rule (GATEWAY_SEMCACHE_VERIFIER_RULES=all), on memory in lean mode (the
// default): the real verifier decides on both stores, each way of running the guard beside it once.
describeSemanticCache('Redis store, every rule', () =>
  redis === undefined ? undefined : { REDIS_URL: redis.url, GATEWAY_SEMCACHE_VERIFIER_RULES: 'all' },
);
