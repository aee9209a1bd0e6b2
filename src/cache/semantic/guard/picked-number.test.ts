import { describe, expect, it } from 'vitest';
import { VERIFIER_GUARD } from '../pair-verifier.ts';
import { GuardPair } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { pickedNumber } from './picked-number.ts';
import { itFollowsTable } from './rule-table.ts';

describe('pickedNumber', () => {
  itFollowsTable(pickedNumber, [
    // One picked against several: the noun a "which" or a "best" picks changes its number.
    ['Which fly should I buy for trout?', 'Which flies should I buy for trout?', 'changed-number'],
    [
      "What's the best garden tool for a beginner?",
      'What are the best garden tools for a beginner?',
      'changed-number',
    ],
    [
      'Which food allergy is most common in children?',
      'Which food allergies are most common in children?',
      'changed-number',
    ],
    [
      "On a tight budget; what's the single best protein source per dollar?",
      'On a tight budget; what are the best protein sources per dollar?',
      'changed-number',
    ],
    ['Which one knife should I buy first?', 'Which knives should I buy first?', 'changed-number'],
    // The picked noun changes number with other nouns that do too.
    [
      "Where's the best spot for a carbon monoxide alarm in a split-level house?",
      'Where are the best spots for carbon monoxide alarms in a split-level house?',
      'changed-number',
    ],
    // Superlatives pick too, "most" with the adjective it leads.
    [
      "What's the biggest houseboat on Lake Powell?",
      'What are the biggest houseboats on Lake Powell?',
      'changed-number',
    ],
    [
      "I'm new to macrame; what is the single most essential knot to learn first?",
      "I'm new to macrame; what are the most essential knots to learn first?",
      'changed-number',
    ],
    // ... with a modifier after the adjective, as after "best".
    [
      "I'm teaching a beginners' class; what is the most common crochet stitch?",
      "I'm teaching a beginners' class; what are the most common crochet stitches?",
      'changed-number',
    ],
    [
      'Which is the least expensive road bike?',
      'Which are the least expensive road bikes?',
      'changed-number',
    ],
    // A superlative let go with the noun's number: one recommendation is not a list (RULE91).
    [
      'Which volcano in Iceland is the easiest to hike?',
      'Which volcanoes in Iceland are easy to hike?',
      'changed-number',
    ],
    [
      'Which city has the best busking scene in Europe?',
      'Which cities have good busking scenes in Europe?',
      'changed-number',
    ],
    [
      'Which sauce pairs best with fresh pappardelle?',
      'Which sauces pair well with fresh pappardelle?',
      'changed-number',
    ],
    ['Which state has the most lakes?', 'Which states have many lakes?', 'changed-number'],
    ['Which beach is most crowded in July?', 'Which beaches are crowded in July?', 'changed-number'],
    // "which" or "what" picks past a name of several words (RULE91).
    [
      'Which Utah ski resort bans snowboarders?',
      'Which Utah ski resorts ban snowboarders?',
      'changed-number',
    ],
    // "what is the" picks as "what" does, either way round (RULE112).
    ["What's the active compound in wasabi?", 'What are the active compounds in wasabi?', 'changed-number'],
    [
      'What are the acupressure points for nausea?',
      'What is the acupressure point for nausea?',
      'changed-number',
    ],
    // "what are some" picks too, against "the best" one (RULE113).
    ["What's the best tahini brand?", 'What are some good tahini brands?', 'changed-number'],
    ['What are some famous marzipan brands?', "What's the most famous marzipan brand?", 'changed-number'],
    // Some against none, or against "a", changes no pick (RULE113).
    ['What are some good tahini brands?', 'What are good tahini brands?', 'ok'],
    ['What is a good tahini brand?', 'What are some good tahini brands?', 'ok'],
    // A pick two or three words from its noun, "what is the" before it (RULE160).
    [
      "What's the most popular Jelly Belly flavor?",
      'What are the most popular Jelly Belly flavors?',
      'changed-number',
    ],
    [
      'What is the best dandruff shampoo ingredient?',
      'What are the best dandruff shampoo ingredients?',
      'changed-number',
    ],
    // A pick on one side only, the noun in another place, is left as today.
    ["What's the best natural dandruff remedy?", 'What natural remedies help dandruff?', 'ok'],
    // A question with "a", or with another verb, picks nothing (RULE112).
    ['What is a good name for a cat?', 'What are good names for cats?', 'ok'],
    ['What does the panda eat?', 'What do the pandas eat?', 'ok'],
    // Past four words, or an agreement word, "which" picks nothing.
    ['What large old red brick building is this?', 'What large old red brick buildings are these?', 'ok'],
    // A noun right after the same possessive, in the other number (RULE115).
    [
      'How do I thank my bridesmaid in my speech?',
      'How do I thank my bridesmaids in my speech?',
      'changed-number',
    ],
    ['Can my cats share a boarding suite?', 'Can my cat share a boarding suite?', 'changed-number'],
    ['Can I quitclaim my house to our kid?', 'Can I quitclaim my house to our kids?', 'changed-number'],
    // Past a modifier, or after another possessive, it is left alone.
    ['How do I introduce her to my older rat?', 'How do I introduce her to my older rats?', 'ok'],
    [
      'My income varies a lot; how big should my fund be?',
      'My income vary a lot; how big should my fund be?',
      'ok',
    ],
    ['Can my cat share a boarding suite?', 'Can our cats share a boarding suite?', 'ok'],
    // A named thing, "the" right before it or one shared word past it, in the other number
    // (RULE153); not where "does" makes it a kind, nor "the emu's" against "the emus".
    ['Where should the pocket go on an apron?', 'Where should the pockets go on an apron?', 'changed-number'],
    [
      "I'm setting a banquet table for twenty guests; where should I place the candelabra?",
      "I'm setting a banquet table for twenty guests; where should I place the candelabras?",
      'changed-number',
    ],
    [
      'Who organizes the polar plunges in Chicago?',
      'Who organizes the polar plunge in Chicago?',
      'changed-number',
    ],
    [
      'What does the acupressure point on the wrist do?',
      'What do the acupressure points on the wrist do?',
      'ok',
    ],
    ['Where should I put a sconce in my hallway?', 'Where should I put sconces in my hallway?', 'ok'],
    ["Do the emu's make good pets?", 'Do the emus make good pets?', 'ok'],
    // One against a collection of them, an owner or a size word before the collective (RULE157);
    // a collection against a bunch is one question.
    [
      'Where should I store a candle snuffer?',
      'Where should I store my collection of candle snuffers?',
      'changed-number',
    ],
    ['How do I store one crinoline?', 'How do I store a whole collection of crinolines?', 'changed-number'],
    [
      'How do I ship a single 78 rpm record safely?',
      'How do I ship a large collection of 78 rpm records safely?',
      'changed-number',
    ],
    ['How do I value a bunch of old cards?', 'How do I value a collection of old cards?', 'ok'],
    // One against all of a thing, the only word changed.
    [
      "I've had my hot tub for two years and one of the jets stopped working; what could be causing it?",
      "I've had my hot tub for two years and all of the jets stopped working; what could be causing it?",
      'changed-number',
    ],
    // A quoted word in the other number, whatever picks it; compared as written, not stemmed.
    ["How do I sign 'book' in ASL?", "How do I sign 'books' in ASL?", 'changed-number'],
    ["How do I say 'the book' in German?", "How do I say 'the books' in German?", 'changed-number'],
    // A generic question in either number is one question: nothing picks the noun.
    ['What does a hawk eat?', 'What do hawks eat?', 'ok'],
    ['Do most cat owners use a litter mat?', 'Do most cat owners use litter mats?', 'ok'],
    ['Can I grow peppers from seed?', 'Can I grow peppers from seeds?', 'ok'],
    [
      'Write a brief story about friendship for a beginner.',
      'Write a brief story about friendship for beginners.',
      'ok',
    ],
  ]);

  // Without another number, a superlative let go is not this rule's, nor another superlative with
  // one (other rules, or the verifier, read those).
  it.each([
    ['Which is the easiest hiking route?', 'Which is an easy hiking route?'],
    ['Which volcano is the easiest to climb?', 'Which volcanoes are the hardest to climb?'],
    ['Which volcano is the easiest to climb?', 'Which volcanoes are the easiest to hike?'],
    // A dropped letter of "ss" after a possessive is a typo, not a singular (RULE115).
    ['How do I calibrate my compass?', 'How do I calibrate my compas?'],
    ['How do I recalibrate the compass?', 'How do I recalibrate the compas?'],
    ['Why is the skin beside my knee incision numb?', 'Why is the skin besides my knee incision numb?'],
    // "the" with a word between that only one side has names no thing alike (RULE153).
    ['Who organizes the polar plunge in Chicago?', 'Who organizes the winter polar plunges in Chicago?'],
  ])('leaves %s / %s to other rules', (question, candidate) => {
    expect(pickedNumber.refuses(new GuardPair(question, candidate))).toBe(false);
  });

  // Another word, not only another number, in quotes: with every rule asked the quoted-string rule
  // refuses it first; lean mode does not ask that one, and this rule refuses it.
  it('refuses a quoted irregular plural, in lean mode as changed-number', () => {
    const [question, candidate] = ["What's the ASL sign for 'person'?", "What's the ASL sign for 'people'?"];
    expect(pickedNumber.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, VERIFIER_GUARD)).toEqual({
      ok: false,
      reason: 'changed-number',
    });
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason: 'quoted' });
  });

  // Beside the verifier this rule refuses these (with every rule asked the numbers rule refuses
  // most of them first); a count on both sides is the changed-figure rule's.
  it.each([
    // One against all, the noun or its verb agreeing.
    [
      'After every wash one of the mugs comes out spotty; why is that?',
      'After every wash all of the mugs come out spotty; why is that?',
    ],
    ['How do I archive one chat in Slack?', 'How do I archive all chats in Slack?'],
    // The agreeing verb before the quantity, a pronoun after it, "just" or "only" before "one"
    // (RULE107).
    [
      'Why does one of my contact lenses keep fogging up?',
      'Why do both of my contact lenses keep fogging up?',
    ],
    ['Why is one of my tomato plants wilting?', 'Why are all of my tomato plants wilting?'],
    [
      'One of the hinges on my kitchen cabinet is loose; how do I tighten it?',
      'All of the hinges on my kitchen cabinet are loose; how do I tighten them?',
    ],
    ['Can I return just one of the chairs I ordered?', 'Can I return all of the chairs I ordered?'],
    // Several counted against one.
    [
      'Our old maple has a dead branch hanging over the patio; can I cut it off myself?',
      'Our old maple has a dozen dead branches hanging over the patio; can I cut them off myself?',
    ],
    ['How do I mount two solar panels on my van roof?', 'How do I mount a solar panel on my van roof?'],
    ['Can I bake one loaf in a small Dutch oven?', 'Can I bake three loaves in a small Dutch oven?'],
    // A collective and "of" count several too; "a pair of" does not.
    ["What's a good chisel for a beginner?", "What's a good set of chisels for a beginner?"],
    ['How do I insure one delivery van?', 'How do I insure a fleet of delivery vans?'],
  ])('refuses one against all or several beside the verifier: %s / %s', (question, candidate) => {
    expect(pickedNumber.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, VERIFIER_GUARD)).toEqual({
      ok: false,
      reason: 'changed-number',
    });
  });

  it.each([
    // One against all with a third word changed too.
    ['How do I archive one chat in Slack?', 'How do I delete all chats in Slack?'],
    ['Why is one of my tomato plants wilting?', 'Why are all of my pepper plants wilting?'],
    // No count: a generic plural, or "a dozen" that is no more than "12".
    ['How do I carry a kayak on my car roof?', 'How do I carry kayaks on my car roof?'],
    ["We're hosting a dozen people; how many pizzas?", "We're hosting 12 people; how many pizzas?"],
    ['Are these binoculars good for birding?', 'Is a pair of binoculars good for birding?'],
    // The count is not next to the noun.
    ['Can I take a nap after two coffees?', 'Can I take two naps after coffee?'],
  ])('leaves a pair without one against all or several: %s / %s', (question, candidate) => {
    expect(pickedNumber.refuses(new GuardPair(question, candidate))).toBe(false);
  });

  // With every rule asked, quantity.ts refuses both first (as numbers); lean mode asks this rule,
  // which reads "one" and "single" only, so "a day" / "each day" stays one question there.
  it('refuses one against every beside the verifier, not "a" against "each"', () => {
    expect(
      checkHitGuard(
        'How do I cancel one occurrence of a recurring Teams meeting?',
        'How do I cancel every occurrence of a recurring Teams meeting?',
        VERIFIER_GUARD,
      ),
    ).toEqual({ ok: false, reason: 'changed-number' });
    expect(
      checkHitGuard(
        'How many hours a day should a dehumidifier run?',
        'How many hours each day should a dehumidifier run?',
        VERIFIER_GUARD,
      ),
    ).toEqual({ ok: true });
  });
});
