import { describe } from 'vitest';
import { movedPossessor } from './possessor.ts';
import { itFollowsTable } from './rule-table.ts';

describe('movedPossessor', () => {
  itFollowsTable(movedPossessor, [
    // The 's on another word: whose relative, whose pull.
    ['What is my grandmother’s niece to me?', "What is my niece's grandmother to me?", 'swapped'],
    ["How strong is the Moon's pull on Earth?", "How strong is Earth's pull on the Moon?", 'swapped'],
    // Two possessive pronouns exchanged.
    [
      'In bocce, if her ball pushes my ball closer to the jack, whose point is it?',
      'In bocce, if my ball pushes her ball closer to the jack, whose point is it?',
      'swapped',
    ],
    // The owner and its 's moved to another noun, nothing else.
    [
      "My neighbor's tree fell on my fence; who pays?",
      "My tree fell on my neighbor's fence; who pays?",
      'swapped',
    ],
    [
      "My neighbor's camera points into my backyard; is that legal?",
      "My camera points into my neighbor's backyard; is that legal?",
      'swapped',
    ],
    // A phrase moved with its possessor, a clause moved, a contraction's s: a rewording.
    ["For my son's school trip, what should he pack?", "What should he pack for my son's school trip?", 'ok'],
    [
      "Last year my tenant's rent went up; is that allowed?",
      "My tenant's rent went up last year; is that allowed?",
      'ok',
    ],
    ["What's the best way to clean my dog's bed?", "What's the best way to clean my dog's bed?", 'ok'],
    ["It's cold; how do I warm my dog's paws?", "How do I warm my dog's paws? It's cold", 'ok'],
  ]);
});
