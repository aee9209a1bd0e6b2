import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeComposition } from './composition-suite.ts';
import { describeFailover } from './failover-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

// One database each: the suites run one after the other, each with a gateway of its own.
const env = (database: number) => () =>
  redis === undefined ? undefined : { REDIS_URL: `${redis.url}/${database}` };
describeFailover('Redis stores', env(1));
describeComposition('Redis stores', env(2));
