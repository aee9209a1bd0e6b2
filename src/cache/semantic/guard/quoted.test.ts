import { describe } from 'vitest';
import { missingQuote } from './quoted.ts';
import { itFollowsTable } from './rule-table.ts';

describe('missingQuote', () => {
  itFollowsTable(missingQuote, [
    ['What does `Array.prototype.map` do?', 'Explain what `Array.prototype.map` does', 'ok'],
    ["What does 'FOMO' mean?", 'What is the meaning of FOMO?', 'ok'],
    ['What is the past tense of swim?', "What's the past tense of the verb 'to swim'?", 'ok'],
    ["Translate 'good morning' to French", "Translate 'good night' to French", 'quoted'],
    ['Why does `[] == false` evaluate to true?', 'Why does `[] == []` evaluate to true?', 'quoted'],
  ]);
});
