import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeSemanticCache } from './semantic-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

// On Redis in lean mode (GATEWAY_SEMCACHE_VERIFIER_RULES=lean), on memory with every rule: the
// real verifier decides on both stores, each way of running the guard beside it once.
describeSemanticCache('Redis store, lean rules', () =>
  redis === undefined ? undefined : { REDIS_URL: redis.url, GATEWAY_SEMCACHE_VERIFIER_RULES: 'lean' },
);
