import { describeComposition } from './composition-suite.ts';
import { describeFailover } from './failover-suite.ts';

describeFailover('memory stores', () => ({}));
describeComposition('memory stores', () => ({}));
