import { beforeAll, describe, expect, it } from 'vitest';
import { changedNumber } from './changed-number.ts';
import { loadEnglishWords } from './english-words.ts';
import { GuardPair } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { loadThesaurus } from './thesaurus.ts';
import { loadWordnet } from './wordnet.ts';

/** The rule as lean mode asks it (beside the verifier, where the numbers rule is not asked). */
const ASKED_ALONE = { asked: new Set(['changed-number'] as const), overrulable: new Set([] as const) };

describe('changedNumber', () => {
  beforeAll(() => Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]));

  it.each([
    ['My bike was worth about $900; should I claim?', 'My bike was worth about $1,900; should I claim?'],
    ['Who was the British Prime Minister in 1940?', 'Who was the British Prime Minister in 1938?'],
    [
      'Is a 3-hour flight delay eligible for compensation?',
      'Is a 2-hour flight delay eligible for compensation?',
    ],
    ['How long do I bake chicken at 400°F?', 'How long do I bake chicken at 350°F?'],
    ['What is the pH of a 0.01 M solution?', 'What is the pH of a 0.001 M solution?'],
    ['I have $3k saved; should I invest?', 'I have $5,000 saved; should I invest?'],
    ['Is a late fee of $500 legal on a $1,500 rent?', 'Is a late fee of $50 legal on a $1,500 rent?'],
    // Number words are their value.
    [
      'How much will a $1,500 laptop be worth after one year?',
      'How much will a $1,500 laptop be worth after five years?',
    ],
    ['Is twenty-five too old to start ballet?', 'Is thirty too old to start ballet?'],
    ['Can I take two ibuprofen at once?', 'Can I take 3 ibuprofen at once?'],
    // A minus sign is another number (RULE66).
    ['Is 20 degrees Fahrenheit too cold for skijoring?', 'Is -20 degrees Fahrenheit too cold for skijoring?'],
    ['Can my freezer hold minus 18 degrees?', 'Can my freezer hold 18 degrees?'],
    // A code whose figure is the only change.
    ['How long is a U9 hockey game?', 'How long is a U13 hockey game?'],
    ['Is the M2 MacBook Air worth it in 2026?', 'Is the M4 MacBook Air worth it in 2026?'],
    // A decade, a century or a round count written with "s" is its figure (RULE131).
    ['Who controlled the clove trade in the 1500s?', 'Who controlled the clove trade in the 1600s?'],
    ['What furniture styles were popular in the 1950s?', "What furniture styles were popular in the 1920's?"],
    ["I'm in my 20s; should I buy term life insurance?", "I'm in my 40s; should I buy term life insurance?"],
    ['Why do 100s of people visit the cave?', 'Why do 1000s of people visit the cave?'],
    // Only a figure ending in 0 takes the "s": "W-2s" are forms, and "five" stays alone.
    ['How do I request a copy of my W-2?', 'How do I request copies of my W-2s from the last five years?'],
    // An ordinal in figures is its number, and beside one the ordinal words too (RULE132).
    [
      'Who controlled the saffron trade in the 16th century?',
      'Who controlled the saffron trade in the 17th century?',
    ],
    ['Is the 4th of July a holiday?', 'Is the 5th of July a holiday?'],
    ['Can I deduct mortgage interest on my 2nd home?', 'Can I deduct mortgage interest on my third home?'],
  ])('refuses a figure replaced by another: %s / %s', (question, candidate) => {
    expect(changedNumber.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, ASKED_ALONE)).toEqual({ ok: false, reason: 'changed-number' });
  });

  it.each([
    // The same values written another way.
    [
      'I have a budget of about $1k; which tools first?',
      'I have a budget of about $1,000; which tools first?',
    ],
    ['Is a used BMW with 100k miles worth it?', 'Is a used BMW with 100,000 miles worth it?'],
    ['I have 5 grand in card debt', 'I have $5,000 in card debt'],
    ["How do I change the oil filter on a '98 Jeep?", 'How do I change the oil filter on a 1998 Jeep?'],
    ['What happens to my 401(k) when I leave?', 'What happens to my 401k when I leave?'],
    // A number on one side only, or the same value in words: the verifier's to judge.
    ["We're hosting 12 people; how many pizzas?", "We're hosting a dozen people; how many pizzas?"],
    ['how 2 tell if my cat is sick', 'How do I tell if my cat is sick?'],
    ['I am 24 and earn $55,000', 'I am twenty-four and earn 55k'],
    [
      'How do I start investing with only $500?',
      'I only have five hundred dollars; how can I begin investing?',
    ],
    ['Can I take 2 ibuprofen at once?', 'Can I take two ibuprofen at once?'],
    ['My package has shown zero updates for a week', 'My package has had no updates for 1 week'],
    // A minus sign and "minus" are one; a range, a name's digits and a subtraction are no sign.
    ['Best ski wax for around minus 10 degrees Celsius?', 'Best ski wax for around -10°C?'],
    ['Is 10-20 reps enough for strength?', 'Is 10 to 20 reps enough for strength?'],
    ['Is COVID-19 still a pandemic?', 'Is covid 19 still a pandemic?'],
    ['What is 10 - 3?', 'What is 10 minus 3?'],
    ['Subtract 20 from ten.', 'What is ten minus 20?'],
    // Figures inside names are not figures.
    ['Can I play my PS4 games on a PS5?', 'Can I play my PS5 games on a PS4?'],
    // A code written another way, or other letters.
    ['Where do I find my w2 online?', 'Where do I find my W-2 online?'],
    ['Is B2B marketing different?', 'Is B2C marketing different?'],
    // The same figures in another order are the number-order rule's.
    ['What percentage of 80 is 20?', 'What percentage of 20 is 80?'],
    // A decade written another way, or in words, or as a century (RULE131).
    ['What music was popular in the 90s?', 'What music was popular in the 1990s?'],
    ["What did kids play with in the '80s?", 'What did kids play with in the 1980s?'],
    ["We're in our 30s; should we refinance?", "We're in our thirties; should we refinance?"],
    ['Who ruled Spain in the 1500s?', 'Who ruled Spain in the 16th century?'],
    // An ordinal written in words or as a century's hundreds (RULE132).
    [
      "I'm planning our 25th reunion; what should tickets cost?",
      "I'm planning our twenty-fifth reunion; what should tickets cost?",
    ],
    [
      'How did newspapers use carrier pigeons in the 1800s?',
      'How did newspapers use carrier pigeons in the 19th century?',
    ],
    ['What jobs will exist in the 21st century?', 'What jobs will exist in the twenty-first century?'],
    ['Should my 1st car be new or used?', 'Should my first car be new or used?'],
    // Ordinal words alone are the verifier's to read.
    ['Should my first car be new or used?', 'Should my second car be new or used?'],
  ])('lets through: %s / %s', (question, candidate) => {
    expect(changedNumber.refuses(new GuardPair(question, candidate))).toBe(false);
  });
});
