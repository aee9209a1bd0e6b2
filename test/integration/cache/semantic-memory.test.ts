import { describeSemanticCache, describeSemanticOff } from './semantic-suite.ts';

describeSemanticCache('memory store', () => ({}));
describeSemanticOff();
