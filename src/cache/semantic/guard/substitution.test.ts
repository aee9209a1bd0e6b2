import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { substitutedContent } from './substitution.ts';

describe('substitutedContent', () => {
  itFollowsTable(substitutedContent, [
    // Rewordings change the frame around the question; synonyms are folded.
    ['How do I reverse a list in Python?', 'Python: how can I reverse a list?', 'ok'],
    ['Where can I purchase a used automobile?', 'Where can I buy a used car?', 'ok'],
    ['Who wrote the novel Pride and Prejudice?', 'Pride and Prejudice - who was its author?', 'ok'],
    // A typo of a word, or a British spelling, is the word.
    ['How do I seperate egg yolks?', 'How do I separate egg yolks?', 'ok'],
    ['How do I renew my driving licence?', 'How do I renew my driving license?', 'ok'],
    // A synonym in some sense WordNet lists, each word the other lacks: the verifier decides.
    ['Why are my new hiking boots so stiff?', 'Why are my new hiking boots so rigid?', 'ok'],
    ['How do I retain moisture in a sourdough loaf?', 'How do I keep moisture in a sourdough loaf?', 'ok'],
    // Or one the Moby thesaurus lists (thesaurus.ts, RULE59), in the same inflection.
    ['How long can I store a case of Malbec?', 'How long can I keep a case of Malbec?', 'ok'],
    ['How do I ask my managers for a raise?', 'How do I ask my bosses for a raise?', 'ok'],
    // A slot of prepositions is a rewording.
    ['Who painted the fresco The Last Supper?', "Who's the painter of The Last Supper?", 'ok'],
    ['Write a haiku about autumn', 'Write a haiku about winter', 'content'],
    ['What is the capital of France?', 'What is the capital of Spain?', 'content'],
    ['How do I sort a list in Python?', 'How do I sort a list in Java?', 'content'],
    ['What is the chemical symbol for gold?', 'What is the chemical symbol for silver?', 'content'],
    // "cooker" / "stove" is a pair the Moby thesaurus lists (a cooker is a stove in British English),
    // left to the verifier since RULE61 (it scores it 0.001); a microwave is another appliance.
    ['How do I cook rice in a rice cooker?', 'How do I cook rice in a microwave?', 'content'],
    // Two English words a letter apart are two words; so are two words no list has.
    ['How many kilobytes are in a megabyte?', 'How many kilobits are in a megabyte?', 'content'],
    // A word the other lacks with no synonym in the other: another thing, a synonym beside it or not.
    [
      'Why are my new hiking boots so stiff and red?',
      'Why are my new hiking boots so rigid and blue?',
      'content',
    ],
    ['Is a metroidvania hard?', 'Is a metroidvanio hard?', 'content'],
    // Another subject in the same frame; another thing in the same slot, an article aside.
    [
      'Can I get a refund if I miss my train?',
      'Can I get a refund if the railway cancels my train?',
      'content',
    ],
    ['Is Venus hotter than Mercury?', 'Is Venus hotter than the Moon?', 'content'],
    // Moby lists other members of one kind and opposites too: still other questions.
    ['When is the best month to visit Lisbon?', 'When is the best year to visit Lisbon?', 'content'],
    [
      'How do I set up weekly payments to my landlord?',
      'How do I set up monthly payments to my landlord?',
      'content',
    ],
    ['How do I translate a menu into French?', 'How do I translate a menu into English?', 'content'],
    // "keep it from" says "stop" (RULE103): the same verb in the slot.
    ['How do I stop my bread from going stale?', 'How do I keep my bread from going stale?', 'ok'],
    ['How do I stop my cast iron pan from rusting?', 'How do I keep my cast iron pan from rusting?', 'ok'],
  ]);
});
