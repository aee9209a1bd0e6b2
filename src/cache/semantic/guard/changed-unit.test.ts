import { describe, expect, it } from 'vitest';
import { changedUnit } from './changed-unit.ts';
import { GuardPair } from './guard-rule.ts';
import { itFollowsTable } from './rule-table.ts';

describe('changedUnit', () => {
  itFollowsTable(changedUnit, [
    // The same figure, a unit of another kind.
    [
      "I'm changing trains and have 8 minutes between arrival and departure; what can I do?",
      "I'm changing trains and have 8 hours between arrival and departure; what can I do?",
      'identifiers',
    ],
    [
      'How much water should my 30-pound dog drink?',
      'How much water should my 30-kilo dog drink?',
      'identifiers',
    ],
    ['My carry-on is 24 inches tall; will it fit?', 'My carry-on is 24 cm tall; will it fit?', 'identifiers'],
    ['How long to walk 5 miles?', 'How long to walk 5 km?', 'identifiers'],
    ['Is 1 TB of cloud storage enough?', 'Is 1 GB of cloud storage enough?', 'identifiers'],
    [
      'Will a parka rated to -20°F be warm enough in Winnipeg?',
      'Will a parka rated to -20°C be warm enough in Winnipeg?',
      'identifiers',
    ],
    [
      'Can I bake bread at 200 degrees Celsius?',
      'Can I bake bread at 200 degrees Fahrenheit?',
      'identifiers',
    ],
    // A number word is its figure (RULE96).
    [
      'Our office Wi-Fi drops out for about ten minutes every afternoon; what could cause that?',
      'Our office Wi-Fi drops out for about ten hours every afternoon; what could cause that?',
      'identifiers',
    ],
    ['Is the one-day pass worth it?', 'Is the one-week pass worth it?', 'identifiers'],
    ['Can bread stay fresh for two days?', 'Can bread stay fresh for 2 weeks?', 'identifiers'],
    ['Ten Minutes of stretching a day: enough?', 'ten hours of stretching a day: enough?', 'identifiers'],
    ['Is ten minutes of stretching enough?', 'Is 10 minutes of stretching enough?', 'ok'],
    ['Can I leave it out for ten mins?', 'Can I leave it out for ten minutes?', 'ok'],
    // "a", "an" and "per" are one of the unit (RULE97).
    ['Is a day enough to see the Louvre?', 'Is a week enough to see the Louvre?', 'identifiers'],
    [
      'How many hours of rest must a truck driver take per day?',
      'How many hours of rest must a truck driver take per week?',
      'identifiers',
    ],
    ['How much can I knit in an hour?', 'How much can I knit in a day?', 'identifiers'],
    ['How many times a day can I eat tofu?', 'How many times per week can I eat tofu?', 'identifiers'],
    ['Can I learn to juggle in a day?', 'Can I learn to juggle in one week?', 'identifiers'],
    ['How many times a day should I feed her?', 'How many times per day should I feed her?', 'ok'],
    ['Is a day enough for Rome?', 'Is one day enough for Rome?', 'ok'],
    // More units (RULE98).
    [
      'Our road easement limits use to vehicles under 3.5 tons; is my truck allowed?',
      'Our road easement limits use to vehicles under 3.5 tonnes; is my truck allowed?',
      'identifiers',
    ],
    [
      'Can a three-season tent handle 60 mph winds?',
      'Can a three-season tent handle 60 km/h winds?',
      'identifiers',
    ],
    ['Is 1000 mg of B12 a day too much?', 'Is 1000 mcg of B12 a day too much?', 'identifiers'],
    ['My plan says 35 Mbps; is that fast?', 'My plan says 35 MB/s; is that fast?', 'identifiers'],
    ['Is a 20-watt charger safe for my phone?', 'Is a 20-volt charger safe for my phone?', 'identifiers'],
    ['What is 1 hectare of farmland worth?', 'What is 1 acre of farmland worth?', 'identifiers'],
    ['Is 300 Mbps enough for 4K?', 'Is 300 megabits per second enough for 4K?', 'ok'],
    // A unit and its abbreviation are one unit.
    ['How much should a 10 pound cat eat?', 'How much should a 10 lb cat eat?', 'ok'],
    ['Can I take it every 12 hours?', 'Can I take it every 12 hrs?', 'ok'],
  ]);

  it.each([
    [
      'My puppy is 12 weeks old; how much should she eat?',
      'My puppy is 12 wks old; how much should she eat?',
    ],
    ['What is the pH of water at 25 degrees Celsius?', 'What is the pH of water at 25°C?'],
    ['Does washing at 60 degrees kill dust mites?', 'Does washing at 60°C kill dust mites?'],
    // One-letter units are not read; a figure with a unit on one side only; both units on one side.
    ['Is 5G safe near my kids?', 'Is 5 GB enough for my kids?'],
    ['I have a 20L tank; how many fish?', 'I have a 20 liter tank; how many fish?'],
    ['Is 10 miles far for a day hike?', 'Is 10 a lot for a day hike?'],
    ['Is 5 km (about 3 miles) a good first run?', 'Is 5 km a good first run?'],
    // A number word with a unit on one side only.
    ['Is ten minutes enough?', 'Is ten enough?'],
    // One of a unit against another figure is not compared ("an hour" / "60 minutes").
    ['Can I run it for an hour?', 'Can I run it for 60 minutes?'],
    // One unit written two ways (RULE98); the content rule reads the words, not this rule.
    ['Is 200 cal a good snack?', 'Is 200 kcal a good snack?'],
    ['Is a 5 kW inverter enough?', 'Is a 5 kilowatt inverter enough?'],
    // "a" before a word that is no unit.
    ['Is a dozen eggs a day too many?', 'Is a dozen eggs too many?'],
    [
      'My dog weighs 30 pounds (14 kg); how much should he eat?',
      'My dog weighs 14 kg; how much should he eat?',
    ],
  ])('does not refuse %s / %s by itself', (question, candidate) => {
    expect(changedUnit.refuses(new GuardPair(question, candidate))).toBe(false);
  });
});
