import { describeCache } from './cache-suite.ts';

describeCache('memory store', () => ({}));
