/**
 * A unit changed: the same figure with a unit of another kind after it on each side ("8 minutes" /
 * "8 hours between trains", "my 30-pound dog" / "my 30-kilo dog", "24 inches" / "24 cm tall"), a
 * number word as its figure ("ten minutes" / "ten hours", "ten minutes" / "10 hours", RULE96), and
 * "a", "an" or "per" as one ("a day" / "a week", "per month" / "per year", RULE97); power, speed,
 * pressure, area, energy, frequency and rates too ("3.5 tons" / "3.5 tonnes", "60 mph" / "60 km/h",
 * RULE98). The changed-figure rule sees the same figure and lets it pass, and the verifier reads
 * the two units alone as near words (0.99 and more whole). A unit and its abbreviation are one
 * unit ("12 hrs" / "12 hours", "a 10 lb cat" / "a 10 pound cat"); one-letter units are not read
 * ("5G", "1990s", "5m" as millions) but for a temperature's scale after a degree sign ("-20°F" /
 * "-20°C"), nor units where either side also writes the figure with the other's unit.
 */
import type { GuardRule } from './guard-rule.ts';
import { NUMBER_WORDS } from './hit-guard-words.ts';
import { wordsAndFigures } from './word-sequences.ts';

/** Unit words by the unit they name. */
const UNITS: Readonly<Record<string, readonly string[]>> = {
  second: ['second', 'seconds', 'sec', 'secs'],
  minute: ['minute', 'minutes', 'min', 'mins'],
  hour: ['hour', 'hours', 'hr', 'hrs'],
  day: ['day', 'days'],
  week: ['week', 'weeks', 'wk', 'wks'],
  month: ['month', 'months', 'mo', 'mos'],
  year: ['year', 'years', 'yr', 'yrs'],
  millimetre: ['mm', 'millimeter', 'millimeters', 'millimetre', 'millimetres'],
  centimetre: ['cm', 'centimeter', 'centimeters', 'centimetre', 'centimetres'],
  metre: ['meter', 'meters', 'metre', 'metres'],
  kilometre: ['km', 'kms', 'kilometer', 'kilometers', 'kilometre', 'kilometres'],
  inch: ['inch', 'inches'],
  foot: ['ft', 'foot', 'feet'],
  yard: ['yd', 'yds', 'yard', 'yards'],
  mile: ['mi', 'mile', 'miles'],
  gram: ['gram', 'grams'],
  kilogram: ['kg', 'kgs', 'kilo', 'kilos', 'kilogram', 'kilograms'],
  pound: ['lb', 'lbs', 'pound', 'pounds'],
  ounce: ['oz', 'ounce', 'ounces'],
  millilitre: ['ml', 'milliliter', 'milliliters', 'millilitre', 'millilitres'],
  litre: ['liter', 'liters', 'litre', 'litres'],
  gallon: ['gal', 'gallon', 'gallons'],
  quart: ['qt', 'quart', 'quarts'],
  pint: ['pint', 'pints'],
  cup: ['cup', 'cups'],
  tablespoon: ['tbsp', 'tablespoon', 'tablespoons'],
  teaspoon: ['tsp', 'teaspoon', 'teaspoons'],
  kilobyte: ['kb'],
  megabyte: ['mb'],
  gigabyte: ['gb'],
  terabyte: ['tb'],
  // More units a question names after a figure (RULE98); words that name other things too ("bar",
  // "knot", "stone") stay out, as one-letter units do.
  ton: ['ton', 'tons'],
  tonne: ['tonne', 'tonnes'],
  milligram: ['mg', 'milligram', 'milligrams'],
  microgram: ['mcg', 'microgram', 'micrograms'],
  millisecond: ['ms', 'millisecond', 'milliseconds'],
  watt: ['watt', 'watts'],
  kilowatt: ['kw', 'kilowatt', 'kilowatts'],
  kilowattHour: ['kwh'],
  volt: ['volt', 'volts'],
  amp: ['amp', 'amps', 'ampere', 'amperes'],
  milliampHour: ['mah'],
  milePerHour: ['mph'],
  kilometrePerHour: ['kph', 'kmh'],
  psi: ['psi'],
  kilopascal: ['kpa'],
  acre: ['acre', 'acres'],
  hectare: ['hectare', 'hectares'],
  // A food calorie is a kilocalorie.
  calorie: ['calorie', 'calories', 'cal', 'cals', 'kcal'],
  kilojoule: ['kj', 'kilojoule', 'kilojoules'],
  hertz: ['hz', 'hertz'],
  kilohertz: ['khz'],
  megahertz: ['mhz'],
  gigahertz: ['ghz'],
  revolutionPerMinute: ['rpm'],
  beatPerMinute: ['bpm'],
  framePerSecond: ['fps'],
  megabit: ['mbps', 'megabit', 'megabits'],
  gigabit: ['gbps', 'gigabit', 'gigabits'],
};
const UNIT_OF = new Map(
  Object.entries(UNITS).flatMap(([unit, words]) => words.map((word): [string, string] => [word, unit])),
);

/** Words that name one of the unit after them (RULE97): "a day", "an hour", "per week". */
const ONE_OF: ReadonlySet<string> = new Set(['a', 'an', 'per']);

/** A temperature: a figure with a degree sign and F or C, or "degrees" and the scale's name or letter. */
const TEMPERATURES =
  /(\p{N}+(?:[.,]\p{N}+)*)\s*(?:°\s*([FC])(?![\p{L}\p{N}])|degrees? (fahrenheit|celsius|centigrade|[FC](?![\p{L}\p{N}])))/giu;
const SCALES: Readonly<Record<string, string>> = { f: 'fahrenheit', c: 'celsius', centigrade: 'celsius' };

/** Each figure followed by a unit word, with the units it is written with ("8 minutes": 8, minute; "-20°F": 20, fahrenheit). */
function measuresOf(text: string): Map<string, Set<string>> {
  const measures = new Map<string, Set<string>>();
  const add = (figure: string, unit: string) => {
    const value = figure.replaceAll(',', '');
    measures.set(value, (measures.get(value) ?? new Set()).add(unit));
  };
  const tokens = wordsAndFigures(text);
  tokens.forEach((token, index) => {
    const unit = UNIT_OF.get(tokens[index + 1] ?? '');
    if (unit === undefined) return;
    // A number word is its figure (RULE96): "ten minutes" is "10 minutes"; "a", "an" and "per"
    // are one of the unit (RULE97): "a day", "per day" and "one day" are one measure.
    const figure = /^\p{N}/u.test(token) ? token : ONE_OF.has(token) ? '1' : NUMBER_WORDS[token];
    if (figure !== undefined) add(figure, unit);
  });
  for (const [, figure = '', sign, named] of text.matchAll(TEMPERATURES)) {
    const scale = (sign ?? named ?? '').toLowerCase();
    add(figure, SCALES[scale] ?? scale);
  }
  return measures;
}

function unitChanged(asked: string, cached: string): boolean {
  const mine = measuresOf(asked);
  const theirs = measuresOf(cached);
  for (const [figure, units] of mine) {
    const other = theirs.get(figure);
    if (other !== undefined && ![...units].some((unit) => other.has(unit))) return true;
  }
  return false;
}

export const changedUnit: GuardRule = {
  reason: 'identifiers',
  refuses: ({ question, candidate }) => unitChanged(question, candidate),
};
