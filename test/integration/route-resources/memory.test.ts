import { describeRouteResources } from './route-resources-suite.ts';

describeRouteResources('memory store', () => ({}));
