import { describe, expect, it } from 'vitest';
import { GuardPair } from './guard-rule.ts';
import { namedPart } from './named-part.ts';
import { itFollowsTable } from './rule-table.ts';

describe('namedPart', () => {
  itFollowsTable(namedPart, [
    // A part named before its thing, with a preposition (RULE22).
    ['How do I waterproof a leather bag?', 'How do I waterproof the stitching on a leather bag?', 'narrower'],
    ['What happens during labor?', 'What happens during the pushing stage of labor?', 'narrower'],
    ['Summarize 1984.', 'Summarize the first chapter of 1984.', 'narrower'],
    // A part written with capitals.
    ['How do I reset the Wi-Fi on my Eufy robot vacuum?', 'How do I reset my Eufy robot vacuum?', 'narrower'],
    ['Can you explain how the DSC part of GMDSS works?', 'Can you explain how GMDSS works?', 'narrower'],
    [
      'What are the rules for boating on the Nevada side of Lake Tahoe?',
      'What are the rules for boating on Lake Tahoe?',
      'narrower',
    ],
    // ... with "just" or another opener, or none, either way round (RULE149).
    [
      'How do I clean just the grinding mechanism of a pepper mill?',
      'How do I clean a pepper mill?',
      'narrower',
    ],
    [
      'How do I clean a pepper mill?',
      'How do I clean just the grinding mechanism of a pepper mill?',
      'narrower',
    ],
    ['How do I polish just the bell of a cymbal?', 'How do I polish a cymbal?', 'narrower'],
    ['How do I polish a cymbal?', 'How do I polish just the bell of a cymbal?', 'narrower'],
    [
      'Is the first movement of the Moonlight Sonata hard to play on piano?',
      'Is the Moonlight Sonata hard to play on piano?',
      'narrower',
    ],
    [
      'Is the Moonlight Sonata hard to play on piano?',
      'Is the first movement of the Moonlight Sonata hard to play on piano?',
      'narrower',
    ],
    ['How do I secure SSH on my web server?', 'How do I secure my web server?', 'narrower'],
    // The thing's article said again after the part: the run is read where it names one.
    ['How do I clean the bell of the cymbal?', 'How do I clean the cymbal?', 'narrower'],
    // A stop word names no part, nor a word that counts the same thing.
    ['What is the meaning of irony?', 'What is irony?', 'ok'],
    ['Where can I buy a pair of hiking boots?', 'Where can I buy hiking boots?', 'ok'],
    ['Can I add a bit of salt to caramel?', 'Can I add salt to caramel?', 'ok'],
    ['How much is the price of a Rolex Submariner?', 'How much is a Rolex Submariner?', 'ok'],
    // A run that ends with no preposition is the narrowing rule's or a rewording.
    ['How do I clean my cymbal properly?', 'How do I clean my cymbal?', 'ok'],
  ]);

  // An abbreviation and its long form put in no part: the words as written are read (the alignment
  // writes one for the other before the guard reads them).
  it.each([
    [
      'My dad is a veteran who uses a wheelchair; will the Department of Veterans Affairs help pay for a home elevator?',
      'My dad is a veteran who uses a wheelchair; will the VA help pay for a home elevator?',
    ],
    [
      "What's the minimum resolution in dots per inch for photo book images?",
      "What's the min DPI for photo book images?",
    ],
    // The alignment's wording of them: a capitalised name's own words, and a run said twice.
    [
      'How do I apply for the GI Bill through the Department of VA?',
      'How do I apply for the GI Bill through the VA?',
    ],
    [
      'How do I apply for the GI Bill through the Veterans Affairs?',
      'How do I apply for the GI Bill through the Department of Veterans Affairs?',
    ],
    [
      'Minimum boat horsepower for pulling for pulling a water skier?',
      'Minimum boat horsepower for pulling a water skier?',
    ],
  ])('reads no part in an abbreviation: %s / %s', (question, candidate) => {
    expect(namedPart.refuses(new GuardPair(question, candidate))).toBe(false);
    expect(namedPart.refuses(new GuardPair(candidate, question))).toBe(false);
  });
});
