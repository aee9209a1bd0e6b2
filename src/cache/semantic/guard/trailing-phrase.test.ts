import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { trailingPhrase } from './trailing-phrase.ts';

describe('trailingPhrase', () => {
  itFollowsTable(trailingPhrase, [
    // A phrase opening with a preposition put at the end narrows the question (RULE163).
    ["What's the history of the pretzel?", "What's the history of the pretzel in America?", 'narrower'],
    ['How do I grow marjoram?', 'How do I grow marjoram from seed?', 'narrower'],
    ['How is a hernia diagnosed with ultrasound?', 'How is a hernia diagnosed?', 'narrower'],
    // Words after the question mark, or a phrase that only frames the question, narrow nothing.
    ['How do I freeze sweet potatoes?', 'How do I freeze sweet potatoes? in short', 'ok'],
    ['Can you explain the offside rule?', 'Can you explain the offside rule for me?', 'ok'],
    ['What year did Napoleon die?', 'What year did Napoleon die? thanks so much', 'ok'],
    // Nor a phrase that points back, or names again what the question names.
    ['Do I have to pay tax on my earnings?', 'Do I have to pay tax on my earnings from it?', 'ok'],
    ['What is the American Cribbage Congress?', 'What is the American Cribbage Congress in cribbage?', 'ok'],
  ]);
});
