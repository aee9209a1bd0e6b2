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
    // The one who acts and the owner exchanged, a person's forms read as one (RULE106).
    [
      'My roommate borrowed my bike and bent the wheel; who should pay for it?',
      "I borrowed my roommate's bike and bent the wheel; who should pay for it?",
      'swapped',
    ],
    ['Can my boss read my personal emails?', "Can I read my boss's personal emails?", 'swapped'],
    [
      "What should I do if I found someone's wallet?",
      'What should I do if someone found my wallet?',
      'swapped',
    ],
    ['Why does my cat hiss at her kitten?', "Why does my cat's kitten hiss at her?", 'swapped'],
    // A whole phrase moved with its owner, more than two words out of place: a rewording.
    [
      "We're driving with our toddler all day; how can we keep her entertained in the car?",
      "In the car, how can we keep our toddler entertained? We're driving with her all day.",
      'ok',
    ],
    // The same in one clause, whatever the others say, and "does" / "do" (RULE140).
    [
      'My neighbor borrowed my pressure washer and cracked the wand; how do I ask him to pay for it?',
      "I borrowed my neighbor's pressure washer and cracked the wand; how do I offer to pay for it?",
      'swapped',
    ],
    [
      'How does my wife take my last name after the wedding?',
      "How do I take my wife's last name after the wedding?",
      'swapped',
    ],
    // "is" / "am", the verb agreeing with "I" (RULE171).
    [
      'My brother is renting out rooms in my house; how should we split the rent money?',
      "I am renting out rooms in my brother's house; how should we split the rent money?",
      'swapped',
    ],
    [
      'Is my spouse entitled to half of my 401(k)?',
      "Am I entitled to half of my spouse's 401(k)?",
      'swapped',
    ],
    // The same clauses, punctuated otherwise, and the owner kept in a reworded clause: no exchange.
    [
      'My neighbor borrowed my pressure washer; how do I ask him to return it?',
      'My neighbor borrowed my pressure washer. How do I ask him to return it?',
      'ok',
    ],
    [
      "I borrowed my neighbor's pressure washer last week; how do I clean it before I return it?",
      "I borrowed my neighbor's pressure washer last week, how do I clean it before I return it?",
      'ok',
    ],
  ]);
});
