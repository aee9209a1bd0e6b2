import { beforeAll, describe, expect, it } from 'vitest';
import { VERIFIER_GUARD } from '../pair-verifier.ts';
import { loadEnglishWords } from './english-words.ts';
import { GuardPair } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { otherNamed } from './other-name.ts';
import { loadThesaurus } from './thesaurus.ts';
import { loadWordnet } from './wordnet.ts';

describe('otherNamed', () => {
  beforeAll(() => Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]));

  it.each([
    // One name in place of another, nothing else changed (the verifier scored these 0.98 to 1.0).
    [
      'I just bought a hybrid bike with Presta valves; how do I inflate the tires at a gas station?',
      'I just bought a hybrid bike with Schrader valves; how do I inflate the tires at a gas station?',
    ],
    ['How do I share my family tree on Ancestry?', 'How do I share my family tree on MyHeritage?'],
    [
      'How do I cancel a campsite reservation on Recreation.gov?',
      'How do I cancel a campsite reservation on ReserveAmerica?',
    ],
    ['Does World Nomads cover scuba diving?', 'Does Allianz cover scuba diving?'],
  ])('refuses %s / %s, in lean mode as identifiers', (question, candidate) => {
    expect(otherNamed.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, VERIFIER_GUARD)).toEqual({ ok: false, reason: 'identifiers' });
  });

  it.each([
    // A name mistyped or shortened, an acronym that may stand for it, a capital opening a sentence.
    ['Can I add six people to one Spotify Family plan?', 'Can I add six people to one Spotfy Family plan?'],
    ['Is the Louvre open on Tuesdays?', 'Is the Louvre open on Tues?'],
    [
      'What do I need to board a cruise in Fort Lauderdale, Florida?',
      'What do I need to board a cruise in Ft. Lauderdale, FL?',
    ],
    [
      "I'm training for the American Birkebeiner; how many kilometers a week should I ski?",
      "I'm training for the Birkie; how many kilometers a week should I ski?",
    ],
    [
      'I hope to play Division I tennis in college; how do I get noticed?',
      'I hope to play D1 tennis in college; how do I get noticed?',
    ],
    ['How do I fix it? My sink drains slowly.', 'How do I fix it? The sink drains slowly.'],
    ['Is the Kindle waterproof?', 'Is the kindle waterproof?'],
  ])('lets %s / %s through', (question, candidate) => {
    expect(otherNamed.refuses(new GuardPair(question, candidate))).toBe(false);
  });
});
