import { afterAll } from 'vitest';
import { startRedisServer } from '../../helpers/redis-server.ts';
import { describeRouteResources } from './route-resources-suite.ts';

const redis = await startRedisServer();
afterAll(async () => {
  await redis?.stop();
});

describeRouteResources('Redis store', () => (redis === undefined ? undefined : { REDIS_URL: redis.url }));
