import { describe } from 'vitest';
import { otherQuestionWord } from './question-word.ts';
import { itFollowsTable } from './rule-table.ts';

describe('otherQuestionWord', () => {
  itFollowsTable(otherQuestionWord, [
    // "How many days" asks how long; "how frequently" is "how often", "how many times a week" too.
    ['How long does sourdough bread stay fresh?', 'How many days will sourdough bread stay fresh?', 'ok'],
    ['How often should I water a cactus?', 'How frequently should a cactus be watered?', 'ok'],
    ['How often should I descale my kettle?', 'how many times a year do I descale my kettle', 'ok'],
    ['Why was the Concorde retired?', 'When was the Concorde retired?', 'question'],
    ['How often should I descale a kettle?', 'How much should I descale a kettle?', 'question'],
    // "How" against "how often".
    ['How often should I oil a cutting board?', 'How should I oil a cutting board?', 'question'],
  ]);
});
