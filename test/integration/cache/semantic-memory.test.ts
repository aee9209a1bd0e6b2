import { describeSemanticCache, describeSemanticOff } from './semantic-suite.ts';

describeSemanticCache('memory store, lean rules (the default)', () => ({}));
describeSemanticOff();
