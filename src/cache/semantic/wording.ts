/**
 * The asked question reworded toward the cached one where the two only write the same thing two
 * ways, before the guard and the pair verifier read them. The verifier reads a near miss as "the
 * same words, one changed", so it refused "feed a pupy" / "feed a puppy", "PNW" / "Pacific
 * Northwest" and "apartment" / "flat" as if they were other questions; the guard's substitution
 * rule did too. Each step below makes one such difference disappear, and only when the cached
 * question shows the other form, so nothing is guessed:
 *
 * - apostrophes and joined words: "Ive" / "I've", "log in" / "login";
 * - acronyms spelt out in the other question: "BSOD" / "Blue Screen of Death", "QB" / "QuickBooks",
 *   "PNW" / "Pacific Northwest" (a compound word's two parts);
 * - abbreviations (ABBREVIATIONS): "approx" / "approximately", "350F" / "350 degrees Fahrenheit",
 *   "b4" / "before", "e.g." / "for example"; informal and clipped forms, "wanna" / "want to",
 *   "hubby" / "husband", "rn" / "right now" (RULE111);
 * - units written short, only right after a figure, "how many" or "per" (FIGURE_UNITS): "240V" /
 *   "240 volt", "8 in" / "8 inch", "how many dB" / "how many decibels", a recipe's "1 c" / "1 cup";
 *   "x" between two figures as "by": "12x16 ft" / "12 by 16 feet"; "=" / "equals"; a number in a
 *   series marked "#2", "no. 2" or "number 2" (RULE141); a century after its ordinal: "17th c." /
 *   "17th century" (RULE151);
 * - airports' codes in capitals (AIRPORT_CODES): "LAX" / "Los Angeles International Airport", "LHR" /
 *   "Heathrow";
 * - US states', Canadian provinces' and Australian states' postal codes in capitals (STATE_CODES):
 *   "CA" / "California", "ON" / "Ontario", "WA" / "Washington state" (with its "state"); "&" /
 *   "and"; "DC" / "Washington, D.C.";
 * - numbers in figures and in words (NUMERALS): "2 kids" / "two kids", "1st class" / "first class";
 * - thousands written with a k: "$2k" / "$2,000", "100k miles" / "100,000 miles";
 * - a price with a currency sign or the currency's name (CURRENCY_NAMES): "$200" / "200 dollars",
 *   "$80" / "eighty dollars", "£30k" / "30 thousand pounds" (RULE80; "pounds" only against "£",
 *   RULE151);
 * - "a" and "an" before the same word: "a HSA" / "an HSA"; "a" or "an" for "1" between the same
 *   words: "about an hour" / "about 1 hour";
 * - "no" before a question word where the cached question writes "know": "how do I no if";
 * - how often, with "x" or in words, the same count and period: "2x a week" / "twice a week",
 *   "3x/day" / "three times a day" (RULE146);
 * - an age written in full or short, the same figure and unit: "6 months old" / "6 mo", "is 80" /
 *   "is 80 years old", "3 yr old" / "3-year-old" (RULE144);
 * - what a thing is for, asked in one frame and in another, the thing the same words: "what is the
 *   purpose of X" / "what is X used for" / "what do people use X for" (RULE143);
 * - British and American spellings: "flavoured yoghurt" / "flavored yogurt";
 * - synonyms in one of SYNONYM_GROUPS ("luggage" / "baggage"), of EVERYDAY_GROUPS ("power cut" /
 *   "power outage", "fell ill" / "became ill"; RULE128, RULE129) or of WORDNET_GROUPS ("ignores" /
 *   "disregards");
 * - typos: a word no English list has, one letter from a word of the cached question that the
 *   list has ("ligt" / "light"; two letters in words of seven or more: "derailer" / "derailleur";
 *   "ys" for "ies": "berrys" / "berries", RULE139),
 *   or from a name WordNet knows ("Seatle" / "Seattle", "Febuary" / "February"; a capitalised word
 *   inside the question only so); a possessive's word against another possessive's: "my todler's
 *   shoe" / "my toddler's shoe" (RULE110); a word neither the list nor WordNet's names has, one
 *   slip from the other's such word between the same words ("rebsae" / "rebase", "Blutooth" /
 *   "Bluetooth", RULE150). Two English words are two words ("desert" /
 *   "dessert"), two unknown ones or two known names two names ("India" / "Indian"), a plural
 *   another number ("Dakotas" / "Dakota");
 * - but a real word commonly written for another (CONFUSED_WORDS) is that word between the same
 *   two words: "helmet to by?" / "helmet to buy?", "dogs to?" / "dogs too?";
 * - and between the same two words a word one with the cached one's in their most frequent senses
 *   (WordNet's first senses, guard/wordnet.ts): "a blurry photo" / "a fuzzy photo", "rent or
 *   lease", never words of a kind a near miss swaps ("minute" / "second", thesaurus.ts); or a
 *   rare word of the English list one edit from a common one, most likely its typo: "20°C watter"
 *   / "20°C water", "the flor" / "the floor";
 * - and between the same two words a word written short, some of its letters kept in order, the
 *   short form no English word: "req'd" / "required", "natl" / "national" (RULE72);
 * - and between the same two words a name written short, both with one capital first, the short one
 *   no English word and at most half as long: "Melb" / "Melbourne", "Qld" / "Queensland" (RULE165);
 * - and between the same words a comparison in one word against "more" / "most" and a word of its
 *   meaning, or "less" / "least" and its opposite: "cheaper" / "less expensive", "hardest" / "most
 *   difficult" (RULE77);
 * - and between the same words a figure written for the word it sounds like: "good 4 posture" /
 *   "good for posture", "how 2 learn" / "how to learn" (RULE78);
 * - a place's name written short as some of its own words (PLACE_SHORT_NAMES): "Vegas" / "Las
 *   Vegas" (RULE79);
 * - a clock time with "am" or "pm" and the same time by its part of the day or its name: "4 AM" /
 *   "4 in the morning", "7pm" / "seven in the evening", "12 pm" / "noon" (RULE82);
 * - two clauses of one sentence exchanged, the subject said once or twice: "I'm 70 and love air
 *   hockey" / "I love air hockey and I'm 70" (RULE83);
 * - "AM" or "PM" after a day's word and that day's morning, afternoon or evening: "tmrw AM" /
 *   "tomorrow morning" (RULE84);
 * - a number and a half in words and with ".5": "15 and a half" / "15.5" (RULE85);
 * - a compass point written short in capitals and spelt out: "a N-facing window" / "a north-facing
 *   window", "the Pacific NW" / "the Pacific Northwest", "S. Korea" / "South Korea" (RULE88);
 * - a height in feet and inches written two ways: "6'4" / "6 foot 4", "5 ft 9" / "5 feet 9 inches
 *   tall"; and degrees "deg F" / "°F" (RULE109);
 * - the items of one list in another order: "iron, vitamin D and calcium" / "calcium, vitamin D and
 *   iron" (RULE145).
 *
 * First of all, the speaker named first or last in a subject of two: "me and my bf are" / "my
 * boyfriend and I are" (RULE81). Last, a part moved (moved-part.ts) is written in the cached
 * question's order: "I'm a barista and our tips are pooled" / "our tips are pooled and I'm a
 * barista", "last year I paid" / "I paid last year". What it does not align (numbers, negation,
 * another entity, any other order) is left for the guard and the verifier to see. Cheap: a few
 * dozen tokens each side, a map lookup per token.
 */
import { MULTIPLIERS, NUMBER_WORDS } from './guard/changed-number.ts';
import { isEnglishWord } from './guard/english-words.ts';
import { INDIRECT_QUESTION_WORDS } from './guard/hit-guard-words.ts';
import { comparedStems } from './guard/inflection.ts';
import { americanSpelling } from './guard/spelling.ts';
import { CLOSED_KINDS } from './guard/thesaurus.ts';
import { editDistance } from './guard/word-sequences.ts';
import { isWordnetName, listedTypo, wordnetAntonyms, wordnetFirstSenses } from './guard/wordnet.ts';
import { movedPart, withStops } from './moved-part.ts';
import { EVERYDAY_GROUPS, SYNONYM_GROUPS, WORDNET_GROUPS } from './synonym-groups.ts';
import {
  ABBREVIATIONS,
  AIRPORT_CODES,
  COMPASS_POINTS,
  CONFUSED_WORDS,
  CONTRACTION_ENDINGS,
  CONTRACTIONS,
  CURRENCY_NAMES,
  FIGURE_UNITS,
  NUMERALS,
  PLACE_SHORT_NAMES,
  SPELLINGS,
  STATE_CODES,
} from './wording-lists.ts';

/** A replacement of asked tokens up to `end`; `from` and `to` where its text starts before or ends after them. */
interface Edit {
  end: number;
  text: string;
  from?: number;
  to?: number;
}

interface Token {
  /** As written. */
  text: string;
  /** Lowercase, apostrophes dropped: what two spellings of one word share ("I've" and "ive"). */
  key: string;
  start: number;
  end: number;
}

/** Listed abbreviations that write letters and figures together ("b4", "ww2"), any case. */
const MIXED = Object.keys(ABBREVIATIONS)
  .filter((key) => /\p{L}/u.test(key) && /\p{N}/u.test(key))
  .map((key) =>
    [...key].map((char) => (/\p{L}/u.test(char) ? `[${char}${char.toUpperCase()}]` : char)).join(''),
  );

/**
 * Words (with inner apostrophes), numbers, degrees ("°C"), "w/", "b/w" (RULE154), "km/h", "m/s"
 * and "m/s²" (RULE169), lowercase letters with dots ("e.g.", "i.e."), the listed abbreviations with
 * a figure ("b4"), "&" and "=" (RULE141); "350F" is "350" and "F".
 */
const TOKEN = new RegExp(
  [
    ...MIXED.map((mixed) => `(?<![\\p{L}\\p{N}])${mixed}(?![\\p{L}\\p{N}])`),
    '(?:°|(?<!\\p{L})deg\\.?)\\s?[CF](?!\\p{L})',
    '(?<!\\p{L})[Ww]\\/[Oo]?(?!\\p{L})',
    '(?<!\\p{L})[Bb]\\/[Ww](?!\\p{L})',
    '(?<!\\p{L})[Kk][Mm]\\/[Hh](?!\\p{L})',
    '(?<![\\p{L}/])[Mm]\\/[Ss](?:²|\\^2)?(?![\\p{L}\\p{N}])',
    '(?<![\\p{L}\\p{N}.])\\p{Ll}(?:\\.\\p{Ll})+\\.?(?![\\p{L}\\p{N}])',
    "\\p{L}+(?:['’]\\p{L}+)*",
    '\\p{N}+(?:[.,]\\p{N}+)*',
    '&',
    '=',
  ].join('|'),
  'gu',
);
const INDIRECT: ReadonlySet<string> = new Set(INDIRECT_QUESTION_WORDS);
/** Words an acronym's letters may skip ("Department of Agriculture" is "DA", "USDA" with "US"). */
const CONNECTORS: ReadonlySet<string> = new Set(['of', 'and', 'the', 'for', 'in', 'on', 'to', 'a', 'an']);

/** A token's key: lowercase, apostrophes, spaces and slashes dropped, and the dots of "e.g.". */
function keyOf(text: string): string {
  // "deg F" is "°F" (RULE109).
  const key = text
    .toLowerCase()
    .replace(/['’\s/]/g, '')
    .replace(/^deg\.?(?=[cf]$)/, '°');
  return /^\p{Ll}(?:\.\p{Ll})+\.?$/u.test(key) ? key.replaceAll('.', '') : key;
}

function tokensOf(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((match) => ({
    text: match[0],
    key: match[0] === '&' ? 'and' : keyOf(match[0]),
    start: match.index,
    end: match.index + match[0].length,
  }));
}

const isLetters = (token: Token | undefined): token is Token =>
  token !== undefined && token.text !== '&' && /^\p{L}+$/u.test(token.key);

/** A phrase's words as keys ("degrees Fahrenheit": "degrees", "fahrenheit"). */
const keysOf = (phrase: string): string[] => tokensOf(phrase).map((token) => token.key);

/** Whether `words` (keys) occur in a row in `tokens` at `start`. */
const runAt = (tokens: readonly Token[], words: readonly string[], start: number): boolean =>
  words.every((word, offset) => tokens[start + offset]?.key === word);

/** Where `words` (keys) occur in a row in `tokens`, from `from` on; -1 when they do not. */
function findRun(tokens: readonly Token[], words: readonly string[], from = 0): number {
  for (let start = from; start + words.length <= tokens.length; start += 1)
    if (runAt(tokens, words, start)) return start;
  return -1;
}

/** The text `tokens[start..end)` covers in `text`. */
const spanText = (text: string, tokens: readonly Token[], start: number, end: number): string =>
  text.slice(tokens[start]?.start ?? 0, tokens[end - 1]?.end ?? 0);

/** Each airport code's names as keys, every name with "International Airport", "International" and "Airport" after it first. */
const AIRPORT_NAMES: ReadonlyMap<string, readonly string[][]> = new Map(
  [...AIRPORT_CODES].map(([code, names]) => [
    code,
    names.flatMap((name) =>
      [`${name} International Airport`, `${name} International`, `${name} Airport`, name].map(keysOf),
    ),
  ]),
);

/** The first name of the airport `code` names (in capitals) that `tokens` write and `own` does not. */
const airportNameIn = (code: string, tokens: readonly Token[], own: readonly Token[]): string[] | undefined =>
  AIRPORT_NAMES.get(code)?.find((words) => findRun(tokens, words) >= 0 && findRun(own, words) < 0);

/** Whether a token reads as an acronym: "PNW", "IRAs", "QB", or lowercase and in no list ("nyc"). */
function acronymLetters(token: Token): string | undefined {
  const match = /^([A-Z]{2,6})s?$/.exec(token.text);
  if (match !== null) return (match[1] as string).toLowerCase();
  if (/^[a-z]{3,5}$/.test(token.text) && isEnglishWord(token.key) === false) return token.key;
  return undefined;
}

/**
 * The initials of a compound word's two parts, for each way of cutting it into two English words
 * of three letters or more: "northwest" gives "nw" (the "NW" of "PNW"), "homeowners" "ho".
 */
function compoundInitials(key: string): string[] {
  if (key.length < 7 || !/^\p{Ll}+$/u.test(key)) return [];
  const initials: string[] = [];
  for (let at = 3; at <= key.length - 3; at += 1)
    if (isEnglishWord(key.slice(0, at)) === true && isEnglishWord(key.slice(at)) === true)
      initials.push(`${key[0]}${key[at]}`);
  return initials;
}

/** The letters a word may give an acronym: its initial, its camelCase parts' ("QuickBooks": "qb"), an acronym's own. */
function initialsOf(token: Token): string[] {
  const options = new Set([token.key[0] ?? '']);
  const parts = token.text.split(/(?<=\p{Ll})(?=\p{Lu})/u);
  if (parts.length > 1)
    options.add(
      parts
        .map((part) => part[0] ?? '')
        .join('')
        .toLowerCase(),
    );
  if (/^[A-Z]{2,4}$/.test(token.text)) options.add(token.key);
  for (const initials of compoundInitials(token.key)) options.add(initials);
  return [...options];
}

/**
 * The end of a run of words from `index` whose initials spell `letters`: connectors may be skipped
 * inside it, and close it only when written with a capital ("Single Sign-On" is "SSO", "Montana
 * to" is not "MT").
 */
function initialsRun(
  letters: string,
  tokens: readonly Token[],
  index: number,
  first: boolean,
  next?: string,
): number | undefined {
  if (letters === '') return tokens[index - 1]?.key === next ? undefined : index;
  const token = tokens[index];
  if (!isLetters(token)) return undefined;
  for (const initials of initialsOf(token)) {
    if (!letters.startsWith(initials)) continue;
    const rest = letters.slice(initials.length);
    if (rest === '' && !first && CONNECTORS.has(token.key) && !/^\p{Lu}/u.test(token.text)) continue;
    const end = initialsRun(rest, tokens, index + 1, false, next);
    if (end !== undefined) return end;
  }
  return !first && CONNECTORS.has(token.key)
    ? initialsRun(letters, tokens, index + 1, false, next)
    : undefined;
}

/**
 * The word an acronym's own side writes right after it, one-letter words aside ("s" of "MB/s"): a
 * run spelling the acronym out never ends on it, or it takes the words both sides share after it
 * ("Mbps but" for "MB/s but", "Pacific Northwest where" for "PNW where", RULE99).
 */
function nextWord(tokens: readonly Token[], from: number): string | undefined {
  for (let at = from; at < tokens.length && at < from + 3; at += 1) {
    const key = tokens[at]?.key ?? '';
    if (key.length > 1) return key;
  }
  return undefined;
}

/** Whether a run of words an acronym's letters matched spells it out: two words or more, or one in camelCase ("QuickBooks"). */
const spelledOut = (tokens: readonly Token[], start: number, end: number): boolean =>
  end - start >= 2 || /\p{Ll}\p{Lu}/u.test(tokens[start]?.text ?? '');

/**
 * Whether `typo` (no English word) is `word` (one) mistyped: one letter apart (two neighbours
 * swapped are one), two in words of seven or more, or a plural with "ys" for "ies" (RULE139). With
 * `name`, `word` is a name WordNet knows (with `inName` too a word of the list, capitalised in a
 * name: "Level 2") and `typo` neither an English word nor such a name, nor the name's plural
 * ("dakotas").
 */
function mistyped(typo: string, word: string, name = false, inName = false): boolean {
  if (typo.length < 3 || word.length < 3 || !/^\p{Ll}+$/u.test(typo) || !/^\p{Ll}+$/u.test(word))
    return false;
  // Typos keep the first letter, or swap the first two.
  if (typo[0] !== word[0] && !(typo[0] === word[1] && typo[1] === word[0])) return false;
  if (isEnglishWord(typo) !== false) return false;
  if (!name && isEnglishWord(word) !== true) return false;
  const known = isWordnetName(word) || (inName && isEnglishWord(word) === true);
  if (name && (!known || isWordnetName(typo) || plural(typo, word) || plural(word, typo))) return false;
  // A plural written with "ys" for "ies" (RULE139): "berrys" / "berries", "frys" / "fries".
  if (!name && /[^aeiou]ys$/.test(typo) && word === `${typo.slice(0, -2)}ies`) return true;
  return editDistance(typo, word, 2) <= (Math.min(typo.length, word.length) >= 7 ? 2 : 1);
}

/** Whether `word` is `other` with "s" or "es" after it. */
const plural = (word: string, other: string): boolean => word === `${other}s` || word === `${other}es`;

/** The letters one slip writes for one another in a word no list has (RULE150: "Shinkansan", "kenzen"). */
const VOWELS: ReadonlySet<string> = new Set(['a', 'e', 'i', 'o', 'u']);

/**
 * Whether `typo` and `word`, neither a word of the English list nor a name WordNet knows (a brand,
 * a tool's name, a borrowed word), are one slip apart (RULE150): two neighbouring letters swapped
 * ("rebsae" / "rebase"), one letter dropped or put in, not the last ("Blutooth", "shiborri"), or
 * one vowel for another ("Shinkansan"); both five letters or more with the same first letter
 * (a plural is a letter put in last, or two). One consonant for another writes another name as often as a typo
 * ("roguelite" / "roguelike") and is left.
 */
function unlistedTypo(typo: string, word: string): boolean {
  if (typo.length < 5 || word.length < 5 || typo[0] !== word[0] || typo === word) return false;
  if (!/^\p{Ll}+$/u.test(typo) || !/^\p{Ll}+$/u.test(word)) return false;
  if ([typo, word].some((key) => isEnglishWord(key) !== false || isWordnetName(key))) return false;
  if (typo.length === word.length) {
    const apart = [...typo].flatMap((letter, at) => (letter === word[at] ? [] : [at]));
    const [first, second] = apart;
    if (first === undefined) return false;
    if (second === undefined) return VOWELS.has(typo[first] ?? '') && VOWELS.has(word[first] ?? '');
    return (
      apart.length === 2 &&
      second === first + 1 &&
      typo[first] === word[second] &&
      typo[second] === word[first]
    );
  }
  const [short, long] = typo.length < word.length ? [typo, word] : [word, typo];
  if (long.length !== short.length + 1) return false;
  let at = 0;
  while (at < short.length && short[at] === long[at]) at += 1;
  return at < short.length && long.slice(at + 1) === short.slice(at);
}

/**
 * Whether `short` is `long` written short (RULE72): "reqd" / "required", "natl" / "national", "std"
 * / "standard": the same first letter and the rest of its letters in `long` in order, itself no
 * English word (the list counts words under three letters as words: "bt", "sw" stay apart), `long`
 * one at least two letters longer, and not `short` with a plural ending ("ascensor" / "ascensores").
 */
function shortened(short: string, long: string): boolean {
  if (short.length < 3 || long.length < short.length + 2 || short[0] !== long[0] || plural(long, short))
    return false;
  if (!/^\p{Ll}+$/u.test(short) || !/^\p{Ll}+$/u.test(long)) return false;
  return lettersInOrder(short, long) && isEnglishWord(short) === false && isEnglishWord(long) === true;
}

/** Whether every letter of `short` is in `long`, in the same order. */
function lettersInOrder(short: string, long: string): boolean {
  let at = 0;
  for (const letter of long) if (letter === short[at]) at += 1;
  return at === short.length;
}

/**
 * Whether `short` is the name `long` written short (RULE165): "melb" / "melbourne", "qld" /
 * "queensland": three letters or more, the same first letter and the rest of its letters in `long`
 * in order, itself no English word, `long` at least twice as long.
 */
function shortName(short: string, long: string): boolean {
  if (short.length < 3 || long.length < 2 * short.length || short[0] !== long[0]) return false;
  return lettersInOrder(short, long) && isEnglishWord(short) === false;
}

/**
 * A word as American spelling writes it: SPELLINGS, or spelling.ts's suffix rules for words of five
 * letters or more ("four" is not "for"), its doubled-l rule aside ("filled" is not "filed").
 */
function spelt(word: string): string {
  const listed = SPELLINGS[word];
  if (listed !== undefined) return listed;
  return word.length < 5 || /ll(?:ed|ing|er|ers)$/.test(word) ? word : americanSpelling(word);
}

/** What a contraction stands for ("won't": "will not"; "it's": "it is", "it has"); none for other words. */
function contracted(text: string): readonly string[] {
  const word = text.toLowerCase().replace('’', "'");
  const whole = CONTRACTIONS[word];
  if (whole !== undefined) return whole;
  const match = /^(\p{L}+)'(\p{L}+)$/u.exec(word);
  if (match === null) return [];
  const [, stem = '', ending = ''] = match;
  if (ending === 't' && stem.endsWith('n')) return [`${stem.slice(0, -1)} not`];
  return (CONTRACTION_ENDINGS[ending] ?? []).map((expansion) => `${stem} ${expansion}`);
}

/** Stems whose "'s" is always "is" or "has" ("it's", "what's", "there's"), never a possessive. */
const CONTRACTING_STEMS: ReadonlySet<string> = new Set(
  'it he she that what who where there here how when why this let'.split(' '),
);

/**
 * Whether a word's "'s" reads as a possessive against the other side's "is" / "has" (RULE100): the
 * word after it is one the other side writes, but not right after its "is" / "has" ("my neighbor's
 * land" / "my neighbor is making hay on my land"; "the router's down" / "the router is in the
 * basement" stays a contraction).
 */
function possessive(
  token: Token,
  after: Token | undefined,
  otherAfter: Token | undefined,
  otherKeys: ReadonlySet<string>,
): boolean {
  const match = /^(\p{L}+)['’]s$/iu.exec(token.text);
  if (match === null || after === undefined || CONTRACTING_STEMS.has((match[1] ?? '').toLowerCase()))
    return false;
  return otherKeys.has(after.key) && after.key !== otherAfter?.key;
}

/** A number's value as compared ("1,000" and "1000" are 1000); NaN for a word. */
const figureValue = (token: Token | undefined): number =>
  token !== undefined && /^\p{N}/u.test(token.key) ? Number(token.key.replaceAll(',', '')) : Number.NaN;

/**
 * A figure marked as a number in a series (RULE141): "#2", "no. 2" ("No.2"), "number 2"; `start`
 * and `end` its tokens (the mark's with the figure's), `from` where "#" starts.
 */
interface NumberMark {
  value: number;
  mark: string;
  start: number;
  end: number;
  from: number;
}

function numberMarksIn(text: string, tokens: readonly Token[]): NumberMark[] {
  const found: NumberMark[] = [];
  tokens.forEach((token, index) => {
    const value = figureValue(token);
    if (Number.isNaN(value)) return;
    if (text[token.start - 1] === '#' && !/[\p{L}\p{N}]/u.test(text[token.start - 2] ?? ''))
      found.push({ value, mark: '#', start: index, end: index + 1, from: token.start - 1 });
    const before = tokens[index - 1];
    const between = before === undefined ? '' : text.slice(before.end, token.start);
    if ((before?.key === 'no' && /^\.\s?$/.test(between)) || (before?.key === 'number' && between === ' '))
      found.push({ value, mark: before.key, start: index - 1, end: index + 1, from: before.start });
  });
  return found;
}

/**
 * An age (RULE144): a figure or number word with a unit of AGE_UNITS and "old" after it ("6 months
 * old", "3-year-old", "2 yrs old"), or "yo" / "y/o"; the same without "old" right after a word of
 * AGE_BEFORE or "(" ("my 2 mo", "is 6 mo", "(2 yrs)"); a bare figure right after "is", "am", "are",
 * "he's" or "she's" that ends its clause or comes before "and" ("my dad is 80"), in years. `start`
 * and `end` its tokens. An age said of someone ("is 12") is written only as another said so ("is
 * 12 years old"), never as one before a noun ("my 12-year-old daughter").
 */
interface Age {
  value: number;
  unit: string;
  start: number;
  end: number;
  /** Said of someone ("is 12", "is 12 years old"), not written before or as a noun ("my 12-year-old"). */
  said: boolean;
}

const AGE_UNITS: ReadonlyMap<string, string> = new Map([
  ...['years', 'year', 'yrs', 'yr', 'yo'].map((unit) => [unit, 'year'] as const),
  ...['months', 'month', 'mos', 'mo'].map((unit) => [unit, 'month'] as const),
  ...['weeks', 'week', 'wks', 'wk'].map((unit) => [unit, 'week'] as const),
]);
const AGE_BEFORE: ReadonlySet<string> = new Set([
  'my',
  'our',
  'his',
  'her',
  'their',
  'a',
  'an',
  'is',
  'am',
  'are',
  'hes',
  'shes',
  'aged',
  'under',
  'over',
]);
const AGE_VERBS: ReadonlySet<string> = new Set(['is', 'am', 'are', 'hes', 'shes']);

function agesIn(text: string, tokens: readonly Token[]): Age[] {
  const found: Age[] = [];
  tokens.forEach((token, start) => {
    const number = numberAt(tokens, start);
    if (number === undefined) return;
    const { value } = number;
    let end = number.end;
    const before = tokens[start - 1];
    const opened = /\(\s*$/.test(text.slice(before?.end ?? 0, token.start));
    // "y/o" is two tokens.
    const slashed = tokens[end]?.key === 'y' && tokens[end + 1]?.key === 'o';
    const unit = slashed ? 'year' : AGE_UNITS.get(tokens[end]?.key ?? '');
    if (unit === undefined) {
      const bare =
        AGE_VERBS.has(before?.key ?? '') &&
        (clauseEndsAfter(text, tokens, end - 1) || tokens[end]?.key === 'and');
      if (bare) found.push({ value, unit: 'year', start, end, said: true });
      return;
    }
    end += slashed ? 2 : 1;
    const old = tokens[end]?.key === 'old';
    if (old) end += 1;
    if (old || slashed || tokens[end - 1]?.key === 'yo' || opened || AGE_BEFORE.has(before?.key ?? ''))
      found.push({ value, unit, start, end, said: AGE_VERBS.has(before?.key ?? '') });
  });
  return found;
}

/**
 * How often (RULE146): a multiplier ("2x", "2 x", "once", "twice", "thrice", "four times") before
 * "a", "an", "per", "each", "every" or "/" and a period ("a week", "per day", "/wk"); `start` and
 * `end` the multiplier's tokens, `short` whether it is written with "x", `at` the period's token.
 */
interface Frequency {
  count: number;
  period: string;
  start: number;
  end: number;
  short: boolean;
  /** The period's token: after "/" or after "a", "per" and the like. */
  at: number;
  slashed: boolean;
}

const ONCE_TWICE: ReadonlyMap<string, number> = new Map([
  ['once', 1],
  ['twice', 2],
  ['thrice', 3],
]);
const PERIODS: ReadonlyMap<string, string> = new Map([
  ...['day', 'days', 'daily'].map((word) => [word, 'day'] as const),
  ...['week', 'wk', 'weeks', 'wks'].map((word) => [word, 'week'] as const),
  ...['month', 'mo', 'months', 'mos'].map((word) => [word, 'month'] as const),
  ...['year', 'yr', 'years', 'yrs'].map((word) => [word, 'year'] as const),
  ...['night', 'nights'].map((word) => [word, 'night'] as const),
  ...['hour', 'hr', 'hours', 'hrs'].map((word) => [word, 'hour'] as const),
]);
const PER_WORDS: ReadonlySet<string> = new Set(['a', 'an', 'per', 'each', 'every']);

function frequenciesIn(text: string, tokens: readonly Token[]): Frequency[] {
  const found: Frequency[] = [];
  tokens.forEach((token, start) => {
    let count = ONCE_TWICE.get(token.key);
    let end = start + 1;
    let short = false;
    if (count === undefined) {
      const number = numberAt(tokens, start);
      const after = tokens[number?.end ?? -1];
      if (number === undefined || (after?.key !== 'x' && after?.key !== 'times')) return;
      count = number.value;
      end = number.end + 1;
      short = after.key === 'x';
    }
    const next = tokens[end];
    if (next === undefined) return;
    const slashed = /^\s*\/\s*$/.test(text.slice((tokens[end - 1] as Token).end, next.start));
    const period = PERIODS.get((slashed ? next : tokens[end + 1])?.key ?? '');
    if (period === undefined || (!slashed && !PER_WORDS.has(next.key))) return;
    found.push({ count, period, start, end, short, at: slashed ? end : end + 1, slashed });
  });
  return found;
}

/** At `index`, a number written with a k right after it ("2k", "1.5K"): its value, else NaN. */
function thousandsAt(tokens: readonly Token[], index: number): number {
  const number = tokens[index];
  const k = tokens[index + 1];
  if (number === undefined || k?.key !== 'k' || k.start !== number.end) return Number.NaN;
  return figureValue(number) * 1000;
}

/** Words that open a noun phrase: a short unit right before one is a preposition or an article ("4 in a booth"). */
const DETERMINERS: ReadonlySet<string> = new Set(
  'a an the my your our his her their its this that these those each every'.split(' '),
);

/** Every form of each unit of FIGURE_UNITS as keys, the most words first: [unit, words, short]. */
const FIGURE_UNIT_FORMS: readonly { unit: string; words: string[]; short: boolean }[] = Object.entries(
  FIGURE_UNITS,
)
  .flatMap(([unit, names]) => [
    { unit, words: [unit], short: true },
    ...names.map((name) => ({ unit, words: keysOf(name), short: false })),
  ])
  .sort((left, right) => right.words.length - left.words.length);

/**
 * A unit of FIGURE_UNITS right after a figure, "how many" or "per"; `start` and `end` are its
 * tokens with the word or figure before it, `to` where its text ends (a short form's dot with it:
 * "in.").
 */
interface FigureUnit {
  /** What comes before the unit: the figure's value, or "how many" or "per". */
  before: string;
  unit: string;
  /** Written short ("240V"), not by the unit's name ("240 volt"). */
  short: boolean;
  start: number;
  end: number;
  to: number;
}

/** What a unit of FIGURE_UNITS may follow at `index`: a figure's value, "how many" or "per". */
function unitPlace(tokens: readonly Token[], index: number): string | undefined {
  const token = tokens[index] as Token;
  const value = figureValue(token);
  if (!Number.isNaN(value)) return String(value);
  if (token.key === 'per') return 'per';
  return token.key === 'many' && tokens[index - 1]?.key === 'how' ? 'how many' : undefined;
}

/** The units in `tokens` right after a figure, "how many" or "per" (glued, or after a space or a hyphen). */
function figureUnitsIn(text: string, tokens: readonly Token[]): FigureUnit[] {
  const found: FigureUnit[] = [];
  tokens.forEach((token, index) => {
    const before = unitPlace(tokens, index);
    const next = tokens[index + 1];
    if (before === undefined || next === undefined || !/^[\s-]?$/.test(text.slice(token.end, next.start)))
      return;
    const form = FIGURE_UNIT_FORMS.find(({ words }) => runAt(tokens, words, index + 1));
    // "4 in a booth", "3 in the car", "how many in the box": a preposition before its noun phrase.
    const nounPhrase = form?.short === true && DETERMINERS.has(tokens[index + 2]?.key ?? '');
    if (form === undefined || nounPhrase) return;
    const end = index + 1 + form.words.length;
    const last = (tokens[end - 1] as Token).end;
    // A short form's own dot ("how many in. should", "per in. of"), not a sentence's end.
    const dotted = form.short && /^\.\s+\p{Ll}/u.test(text.slice(last));
    found.push({
      before,
      unit: form.unit,
      short: form.short,
      start: index,
      end,
      to: last + (dotted ? 1 : 0),
    });
  });
  return found;
}

/**
 * A century after its ordinal figure ("17th century", "19th-c.", "1st cent."), written short
 * (`short`) or in full; `start` and `end` are its tokens with the ordinal, `to` where its text ends
 * (a short form's dot with it).
 */
interface Century {
  ordinal: string;
  short: boolean;
  start: number;
  end: number;
  to: number;
}

/** The short forms of "century" after an ordinal (RULE151). */
const CENTURY_SHORT: ReadonlySet<string> = new Set(['c', 'cent']);

/** The centuries in `tokens` right after an ordinal figure (after a space or a hyphen). */
function centuriesIn(text: string, tokens: readonly Token[]): Century[] {
  const found: Century[] = [];
  tokens.forEach((token, index) => {
    // "17th" is two tokens, the figure and its ending, glued.
    const [ending, next] = [tokens[index + 1], tokens[index + 2]];
    if (ending === undefined || next === undefined || !/^\d{1,2}$/.test(token.key)) return;
    if (ending.start !== token.end || !/^(?:st|nd|rd|th)$/.test(ending.key)) return;
    if (!/^[\s-]?$/.test(text.slice(ending.end, next.start))) return;
    const short = CENTURY_SHORT.has(next.key);
    if (!short && next.key !== 'century') return;
    const dotted = short && text[next.end] === '.';
    found.push({
      ordinal: token.key,
      short,
      start: index,
      end: index + 3,
      to: next.end + (dotted ? 1 : 0),
    });
  });
  return found;
}

/**
 * "x" between two figures, each maybe with one word right after it ("12x16", "2m x 3m", "18in x
 * 24in"): the figures' values and the "x" token's index.
 */
function timesIn(tokens: readonly Token[]): { first: number; second: number; at: number }[] {
  const found: { first: number; second: number; at: number }[] = [];
  tokens.forEach((token, index) => {
    if (token.key !== 'x' && token.key !== 'by') return;
    const second = figureValue(tokens[index + 1]);
    const first = [index - 1, index - 2]
      .map((at) => figureValue(tokens[at]))
      .find((value, offset) => !Number.isNaN(value) && (offset === 0 || isLetters(tokens[index - 1])));
    if (first !== undefined && !Number.isNaN(second)) found.push({ first, second, at: index });
  });
  return found;
}

/**
 * A price in `tokens`: a figure (a k read as thousands) with a currency sign just before it ("$200",
 * `named` false) or the currency's name right after it ("200 dollars", `named` true); `start` and
 * `end` are its tokens, `from` where its text begins (the sign, or the figure).
 */
interface Price {
  value: number;
  sign: string;
  named: boolean;
  start: number;
  end: number;
  from: number;
}

/**
 * A number in words at `start`, up to `end`: a number word ("eighty"), a ten and a unit ("thirty
 * five", "thirty-five"), either with "hundred" or "thousand" after it, or a figure with one of
 * those ("30 thousand"); none where there is no number word (a figure alone is the figures').
 */
function wordedNumberAt(tokens: readonly Token[], start: number): { value: number; end: number } | undefined {
  const first = tokens[start];
  const word = NUMBER_WORDS.get(first?.key ?? '');
  let value = word ?? figureValue(first);
  let end = start + 1;
  const unit = NUMBER_WORDS.get(tokens[end]?.key ?? '');
  if (word !== undefined && word >= 20 && word % 10 === 0 && unit !== undefined && unit < 10) {
    value += unit;
    end += 1;
  }
  const multiplier = MULTIPLIERS[tokens[end]?.key ?? ''];
  if (multiplier !== undefined) {
    value *= multiplier;
    end += 1;
  }
  if ((word === undefined && multiplier === undefined) || Number.isNaN(value)) return undefined;
  return { value, end };
}

/** A figure or a number in words at `start` ("6", "six", "twenty five"): its value and where it ends. */
function numberAt(tokens: readonly Token[], start: number): { value: number; end: number } | undefined {
  const figure = figureValue(tokens[start]);
  return Number.isNaN(figure) ? wordedNumberAt(tokens, start) : { value: figure, end: start + 1 };
}

function pricesIn(text: string, tokens: readonly Token[]): Price[] {
  const prices: Price[] = [];
  // Tokens before `next` belong to a price already read ("thirty five dollars" is not also "five dollars").
  let next = 0;
  tokens.forEach((token, start) => {
    if (start < next) return;
    // A price in words: the number in words, then the currency's name (RULE80).
    const worded = wordedNumberAt(tokens, start);
    const wordedName = worded === undefined ? undefined : CURRENCY_NAMES.get(tokens[worded.end]?.key ?? '');
    if (worded !== undefined && wordedName !== undefined) {
      prices.push({
        value: worded.value,
        sign: wordedName,
        named: true,
        start,
        end: worded.end + 1,
        from: token.start,
      });
      next = worded.end + 1;
      return;
    }
    const thousands = thousandsAt(tokens, start);
    const value = Number.isNaN(thousands) ? figureValue(token) : thousands;
    if (Number.isNaN(value)) return;
    const end = Number.isNaN(thousands) ? start + 1 : start + 2;
    const sign = text[token.start - 1];
    if (sign === '$' || sign === '€' || sign === '£') {
      prices.push({ value, sign, named: false, start, end, from: token.start - 1 });
      return;
    }
    const name = tokens[end] === undefined ? undefined : CURRENCY_NAMES.get(tokens[end].key);
    if (name !== undefined)
      prices.push({ value, sign: name, named: true, start, end: end + 1, from: token.start });
  });
  return prices;
}

/**
 * Where `tokens` name the District of Columbia: "DC" or "D.C." in capitals, with "Washington" before
 * it or not (`washington`), as a span of tokens.
 */
function districtOf(
  tokens: readonly Token[],
): { start: number; end: number; washington: boolean } | undefined {
  for (let at = 0; at < tokens.length; at += 1) {
    const token = tokens[at] as Token;
    const next = tokens[at + 1];
    const end =
      token.text === 'DC'
        ? at + 1
        : token.text === 'D' && next?.text === 'C' && next.start === token.end + 1
          ? at + 2
          : -1;
    if (end < 0) continue;
    const washington = tokens[at - 1]?.key === 'washington';
    return { start: washington ? at - 1 : at, end, washington };
  }
  return undefined;
}

/** Member phrases (as keys) of every synonym group, by first word: [words, group]. */
const SYNONYM_INDEX = new Map<string, { words: string[]; group: number }[]>();
[...SYNONYM_GROUPS, ...EVERYDAY_GROUPS, ...WORDNET_GROUPS].forEach((group, index) => {
  for (const member of group) {
    const words = keysOf(member);
    const first = words[0];
    if (first === undefined) continue;
    const entries = SYNONYM_INDEX.get(first) ?? [];
    entries.push({ words, group: index });
    SYNONYM_INDEX.set(first, entries);
  }
});

/**
 * Each abbreviation's expansions as keys, the most words first ("degrees Fahrenheit" before
 * "Fahrenheit"); a number's figures and its word are one more ("2" / "two", "first" / "1st").
 */
const ABBREVIATION_WORDS = new Map<string, string[][]>(
  [...Object.entries(ABBREVIATIONS), ...Object.entries(NUMERALS)].map(([abbreviation, expansions]) => [
    abbreviation,
    expansions.map(keysOf).sort((left, right) => right.length - left.length),
  ]),
);

/** Abbreviations by each of their expansions (as keys): "approximately" is "approx". */
const EXPANSIONS = new Map<string, { abbreviation: string; words: string[] }[]>();
for (const [abbreviation, expansions] of ABBREVIATION_WORDS) {
  for (const words of expansions) {
    const entries = EXPANSIONS.get(words[0] ?? '') ?? [];
    entries.push({ abbreviation, words });
    EXPANSIONS.set(words[0] ?? '', entries);
  }
}

/** The synonym groups whose members occur in `tokens`, each with where it occurs and its words. */
function synonymsIn(tokens: readonly Token[]): Map<number, { start: number; end: number; key: string }> {
  const found = new Map<number, { start: number; end: number; key: string }>();
  tokens.forEach((token, start) => {
    for (const { words, group } of SYNONYM_INDEX.get(token.key) ?? []) {
      if (found.has(group) || !runAt(tokens, words, start)) continue;
      found.set(group, { start, end: start + words.length, key: words.join(' ') });
    }
  });
  return found;
}

/** A clock time: its tokens, hour (1 to 12), minutes, half of the day and whether "am" or "pm" wrote it. */
interface ClockTime {
  start: number;
  end: number;
  hour: number;
  minutes: string;
  pm: boolean;
  short: boolean;
}

/** The words after an hour that say its half of the day, each with the hours it may name (RULE82). */
const DAY_PARTS: readonly { words: string[]; pm: boolean; hours: readonly number[] }[] = [
  { words: ['in', 'the', 'morning'], pm: false, hours: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
  { words: ['in', 'the', 'afternoon'], pm: true, hours: [12, 1, 2, 3, 4, 5, 6] },
  { words: ['in', 'the', 'evening'], pm: true, hours: [4, 5, 6, 7, 8, 9, 10, 11] },
  { words: ['at', 'night'], pm: true, hours: [7, 8, 9, 10, 11] },
];
/** Twelve o'clock by its name: "noon" (or "12 noon", "midday") and "midnight". */
const TWELVES: ReadonlyMap<string, boolean> = new Map([
  ['noon', true],
  ['midday', true],
  ['midnight', false],
]);

/** A height in feet and inches (RULE109): `start` and `end` its tokens, `from` and `to` its text. */
interface Height {
  feet: number;
  inches: number;
  start: number;
  end: number;
  from: number;
  to: number;
}

const FEET: ReadonlySet<string> = new Set(['ft', 'feet', 'foot']);
const INCHES: ReadonlySet<string> = new Set(['in', 'inch', 'inches']);
/** What may follow "in" read as inches after a height: "5 ft 10 in tall", not "5 ft 10 in height". */
const AFTER_INCHES: ReadonlySet<string> = new Set(['tall', 'high', 'and', 'with', 'in']);

/**
 * The heights in feet and inches in `tokens` (RULE109): feet from 1 to 8 and inches from 0 to 11,
 * an apostrophe between two figures ("6'4", "5'10\"", "5′6″") or "ft", "feet" or "foot" between two
 * figures or number words ("5 ft 9", "6-foot-4", "five foot ten"), with "in", "inch" or "inches"
 * after them or not ("5 feet 9 inches", "5ft 10in"), and "tall" after that or not.
 */
function heightsIn(text: string, tokens: readonly Token[]): Height[] {
  const valueAt = (index: number, words: boolean) => {
    const token = tokens[index];
    if (token === undefined) return Number.NaN;
    if (/^\d{1,2}$/.test(token.key)) return Number(token.key);
    return words ? (NUMBER_WORDS.get(token.key) ?? Number.NaN) : Number.NaN;
  };
  const gap = (left: Token | undefined, right: Token | undefined) =>
    left === undefined || right === undefined ? undefined : text.slice(left.end, right.start);
  const heights: Height[] = [];
  tokens.forEach((token, index) => {
    const next = tokens[index + 1];
    const quoted = /^\s?['′’]\s?$/.test(gap(token, next) ?? '');
    const worded =
      !quoted &&
      FEET.has(next?.key ?? '') &&
      /^[\s-]?$/.test(gap(token, next) ?? '') &&
      /^[\s-]?$/.test(gap(next, tokens[index + 2]) ?? '.');
    if (!quoted && !worded) return;
    const at = index + (quoted ? 1 : 2);
    const feet = valueAt(index, worded);
    const inches = valueAt(at, worded);
    if (!(feet >= 1 && feet <= 8 && inches >= 0 && inches <= 11)) return;
    let end = at + 1;
    let to = (tokens[at] as Token).end;
    const mark = /^\s?(?:"|″|''|”)/.exec(text.slice(to));
    const unit = tokens[end];
    if (mark !== null) to += mark[0].length;
    else if (unit !== undefined && INCHES.has(unit.key) && /^[\s-]?$/.test(gap(tokens[at], unit) ?? '')) {
      const after = tokens[end + 1];
      const close = after === undefined || /^\s*[^\s\p{L}\p{N}]/u.test(text.slice(unit.end));
      if (unit.key !== 'in' || close || AFTER_INCHES.has(after.key)) {
        to = unit.end;
        end += 1;
      }
    }
    // "tall" after it is the height's own word: "5'4" / "5 feet 4 inches tall".
    const tall = tokens[end];
    if (tall?.key === 'tall' && /^\s$/.test(text.slice(to, tall.start))) {
      to = tall.end;
      end += 1;
    }
    heights.push({ feet, inches, start: index, end, from: token.start, to });
  });
  return heights;
}

/**
 * The clock times in `tokens` (RULE82): an hour from 1 to 12, in figures or a number word, with
 * minutes after a colon or none, then "am" or "pm" ("6am", "6:30 a.m.", "7 PM"), or "o'clock" or
 * nothing and then the words of a part of the day that hour may be in ("4 in the morning", "seven
 * o'clock in the evening"); "noon", "midnight", with "12" before them or not.
 */
function clockTimesIn(text: string, tokens: readonly Token[]): ClockTime[] {
  const hourAt = (index: number) => {
    const token = tokens[index];
    if (token === undefined || text[token.start - 1] === ':') return Number.NaN;
    const hour = /^\d{1,2}$/.test(token.key)
      ? Number(token.key)
      : (NUMBER_WORDS.get(token.key) ?? Number.NaN);
    return hour >= 1 && hour <= 12 && token.key !== 'dozen' ? hour : Number.NaN;
  };
  const times: ClockTime[] = [];
  tokens.forEach((token, index) => {
    const twelve = TWELVES.get(token.key);
    if (twelve !== undefined) {
      const start = hourAt(index - 1) === 12 ? index - 1 : index;
      times.push({ start, end: index + 1, hour: 12, minutes: '', pm: twelve, short: false });
      return;
    }
    const hour = hourAt(index);
    if (Number.isNaN(hour)) return;
    const next = tokens[index + 1];
    const timed = next !== undefined && text.slice(token.end, next.start) === ':' && /^\d\d$/.test(next.key);
    const minutes = timed ? next.key : '';
    let at = index + (timed ? 2 : 1);
    const half = tokens[at]?.key;
    if (half === 'am' || half === 'pm') {
      times.push({ start: index, end: at + 1, hour, minutes, pm: half === 'pm', short: true });
      return;
    }
    if (tokens[at]?.key === 'oclock') at += 1;
    const part = DAY_PARTS.find(({ words, hours }) => hours.includes(hour) && runAt(tokens, words, at));
    if (part !== undefined)
      times.push({ start: index, end: at + part.words.length, hour, minutes, pm: part.pm, short: false });
  });
  return times;
}

/** Words for a day that "AM" or "PM" may follow as its morning or its afternoon or evening (RULE84). */
const DAY_WORDS: ReadonlySet<string> = new Set(
  (
    'this today tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday ' +
    'tmrw tmr mon tue tues wed thu thur thurs fri sat sun'
  ).split(' '),
);
/** The parts of the day "AM" and "PM" name after a day's word. */
const DAY_HALVES: ReadonlyMap<string, readonly string[]> = new Map([
  ['am', ['morning']],
  ['pm', ['afternoon', 'evening']],
]);

/** Whether two day words name one day, one maybe written short ("tmrw" / "tomorrow", "Sat" / "Saturday"). */
const sameDay = (word: string, other: string): boolean =>
  word === other ||
  (ABBREVIATION_WORDS.get(word) ?? []).some((words) => words.join(' ') === other) ||
  (ABBREVIATION_WORDS.get(other) ?? []).some((words) => words.join(' ') === word);

/**
 * A whole number and a half in `tokens` (RULE85): a figure or a number word from one to twelve
 * followed by "and a half" ("15 and a half", "two and a half"), or a figure ending in ".5" ("15.5");
 * each with its value and whether it is written in words.
 */
function halvesIn(
  text: string,
  tokens: readonly Token[],
): { start: number; end: number; value: number; worded: boolean }[] {
  const halves: { start: number; end: number; value: number; worded: boolean }[] = [];
  tokens.forEach((token, index) => {
    if (/[/.,]/.test(text[token.start - 1] ?? '')) return;
    if (/^\d+\.5$/.test(token.key)) {
      halves.push({ start: index, end: index + 1, value: Number(token.key), worded: false });
      return;
    }
    const whole = /^\d+$/.test(token.key) ? Number(token.key) : (NUMBER_WORDS.get(token.key) ?? Number.NaN);
    if (Number.isNaN(whole) || token.key === 'dozen' || (!/^\d/.test(token.key) && whole > 12)) return;
    if (runAt(tokens, ['and', 'a', 'half'], index + 1))
      halves.push({ start: index, end: index + 4, value: whole + 0.5, worded: true });
  });
  return halves;
}

/** PLACE_SHORT_NAMES as keys, with where the short name's words sit in the full name's. */
const PLACE_NAME_WORDS = [...PLACE_SHORT_NAMES].map(([short, full]) => {
  const [shortWords, fullWords] = [keysOf(short), keysOf(full)];
  return { short: shortWords, full: fullWords, offset: findRun(tokensOf(full), shortWords) };
});

/**
 * Where `short` occurs in `tokens` as a name of its own: not inside `full` (which holds it at
 * `offset`), no capitalised word right before it (but the question's first) or after it ("the
 * Vegas Golden Knights"); -1 if nowhere.
 */
function shortNameAt(
  tokens: readonly Token[],
  short: readonly string[],
  full: readonly string[],
  offset: number,
): number {
  const named = (token: Token | undefined) => token !== undefined && /^\p{Lu}\p{Ll}/u.test(token.text);
  for (let at = findRun(tokens, short); at >= 0; at = findRun(tokens, short, at + 1)) {
    const alone = !(at > 1 && named(tokens[at - 1])) && !named(tokens[at + short.length]);
    if (alone && !runAt(tokens, full, at - offset)) return at;
  }
  return -1;
}

/** Figures texting writes for the words they sound like (RULE78). */
const SOUNDED_FIGURES: ReadonlyMap<string, readonly string[]> = new Map([
  ['4', ['for']],
  ['2', ['to', 'too']],
]);

/** Whether two single words are members of one synonym group. */
const oneGroup = (word: string, other: string): boolean =>
  (SYNONYM_INDEX.get(word) ?? []).some(
    ({ words, group }) =>
      words.length === 1 &&
      (SYNONYM_INDEX.get(other) ?? []).some((them) => them.group === group && them.words.length === 1),
  );

/** The words that compare with one word after them: "more" and "less" as "-er" does, "most" and "least" as "-est". */
const DEGREES: ReadonlyMap<string, { ending: 'er' | 'est'; opposite: boolean }> = new Map([
  ['more', { ending: 'er', opposite: false }],
  ['most', { ending: 'est', opposite: false }],
  ['less', { ending: 'er', opposite: true }],
  ['least', { ending: 'est', opposite: true }],
]);

/**
 * Whether a comparison in one word (`compared`, lowercase: "cheaper", "hardest") is `degree`
 * before `word` ("less expensive", "most difficult", RULE77): its stem an English word, `word`
 * the stem itself or one of its meaning after "more" or "most" (WordNet's first senses, one
 * synonym group; never of a kind a near miss swaps), its direct antonym after "less" or "least".
 */
function sameComparison(compared: string, degree: string, word: string): boolean {
  const found = comparedStems(compared);
  const reads = DEGREES.get(degree);
  if (found === undefined || reads === undefined || reads.ending !== found.ending) return false;
  return found.stems.some((stem) => {
    if (isEnglishWord(stem) !== true) return false;
    if (reads.opposite) return wordnetAntonyms(stem, word);
    if (stem === word) return true;
    if (CLOSED_KINDS.has(stem) || CLOSED_KINDS.has(word)) return false;
    return wordnetFirstSenses(stem, word) || oneGroup(stem, word);
  });
}

/** Whether the text between two tokens ends a clause (or nothing follows). */
const clauseEndsAfter = (text: string, tokens: readonly Token[], index: number): boolean =>
  tokens[index + 1] === undefined ||
  /[,;:.?!]/.test(text.slice(tokens[index]?.end ?? 0, tokens[index + 1]?.start ?? text.length));

/** "how much does" or "do" X "cost": the verb's token and "cost"'s. */
interface CostAsked {
  verb: number;
  cost: number;
}

/**
 * Where a question asks "how much is" or "are" (the verb's token), and "how much does" or "do" X
 * "cost" (the verb's and "cost"'s tokens, X one to eight words inside one clause).
 */
function howMuch(text: string, tokens: readonly Token[]): { is: number[]; does: CostAsked[] } {
  const found: { is: number[]; does: CostAsked[] } = { is: [], does: [] };
  tokens.forEach((token, at) => {
    if (token.key !== 'how' || tokens[at + 1]?.key !== 'much') return;
    const verb = at + 2;
    const key = tokens[verb]?.key;
    if (key === 'is' || key === 'are') found.is.push(verb);
    if (key !== 'does' && key !== 'do') return;
    for (let cost = verb + 2; cost <= verb + 9 && cost < tokens.length; cost += 1) {
      if (clauseEndsAfter(text, tokens, cost - 1)) return;
      if (tokens[cost]?.key === 'cost') {
        found.does.push({ verb, cost });
        return;
      }
    }
  });
  return found;
}

/**
 * Whether "how much is X" (`verb` in `isTokens`) asks what "how much does X cost" (`does` in
 * `doesTokens`) does: the same X, then in the first a clause's end or the word that follows "cost"
 * in the second ("how much is laser tag per person" / "how much does laser tag cost per person";
 * not "how much is a snowmobile engine" / "how much does a snowmobile cost").
 */
function sameCosted(
  isText: string,
  isTokens: readonly Token[],
  verb: number,
  doesText: string,
  doesTokens: readonly Token[],
  does: CostAsked,
): boolean {
  const words = doesTokens.slice(does.verb + 1, does.cost).map((token) => token.key);
  if (!runAt(isTokens, words, verb + 1)) return false;
  const last = verb + words.length;
  return (
    clauseEndsAfter(isText, isTokens, last) ||
    (!clauseEndsAfter(doesText, doesTokens, does.cost) &&
      isTokens[last + 1]?.key === doesTokens[does.cost + 1]?.key)
  );
}

/**
 * A question of what a thing is for, in one of its frames (RULE143): "what is / are / 's the
 * purpose / use / point of X", "what is X used for", "what is X (even) for", "what do people / you
 * / we / I use X for". `start` is "what"'s token and `end` its clause's end; `thing` the keys of X
 * with what follows the frame's "for" in its clause ("arrowroot in recipes" in "what's arrowroot
 * even for in recipes?"). "was", "can" and "good for" are other questions, left to the verifier.
 */
interface PurposeAsked {
  frame: string;
  start: number;
  end: number;
  thing: string;
}

const PURPOSE_NOUNS: ReadonlySet<string> = new Set(['purpose', 'use', 'point']);
const PURPOSE_USERS: ReadonlySet<string> = new Set(['people', 'you', 'we', 'i']);

function purposesIn(text: string, tokens: readonly Token[]): PurposeAsked[] {
  const found: PurposeAsked[] = [];
  const keys = (from: number, to: number) =>
    tokens
      .slice(from, to)
      .map((token) => token.key)
      .join(' ');
  tokens.forEach((token, start) => {
    if (
      (token.key !== 'what' && token.key !== 'whats') ||
      (start > 0 && !clauseEndsAfter(text, tokens, start - 1))
    )
      return;
    let end = start;
    while (!clauseEndsAfter(text, tokens, end)) end += 1;
    end += 1;
    const lastFor = tokens.findLastIndex((other, at) => at > start && at < end && other.key === 'for');
    const users = tokens[start + 1]?.key === 'do' && PURPOSE_USERS.has(tokens[start + 2]?.key ?? '');
    if (users && tokens[start + 3]?.key === 'use' && lastFor > start + 4) {
      const thing = `${keys(start + 4, lastFor)} ${keys(lastFor + 1, end)}`.trim();
      found.push({ frame: 'use', start, end, thing });
      return;
    }
    const subject = token.key === 'whats' ? start + 1 : start + 2;
    if (token.key === 'what' && tokens[start + 1]?.key !== 'is' && tokens[start + 1]?.key !== 'are') return;
    const noun = tokens[subject]?.key === 'the' ? subject + 1 : subject;
    if (PURPOSE_NOUNS.has(tokens[noun]?.key ?? '') && tokens[noun + 1]?.key === 'of' && noun + 2 < end) {
      found.push({ frame: `the ${tokens[noun]?.key} of`, start, end, thing: keys(noun + 2, end) });
      return;
    }
    if (lastFor <= subject) return;
    // A bare "for" ends its clause ("what is a bidet for?", not "what is the best fertilizer for
    // roses?"); "used for" and "even for" may have words after them.
    const used = tokens[lastFor - 1]?.key === 'used' || tokens[lastFor - 1]?.key === 'even';
    if (!used && lastFor !== end - 1) return;
    const thingEnd = used ? lastFor - 1 : lastFor;
    if (thingEnd <= subject || tokens[thingEnd - 1]?.key === 'good') return;
    found.push({
      frame: used ? `${tokens[lastFor - 1]?.key} for` : 'for',
      start,
      end,
      thing: `${keys(subject, thingEnd)} ${keys(lastFor + 1, end)}`.trim(),
    });
  });
  return found;
}

/** A negative contraction as written right: "doesn't", not "does'nt" (RULE136). */
const NEGATIVE_CONTRACTION = /n['’]t$/i;

/** Runs of the steps at most: a run reads what the run before wrote (RULE138). */
const ALIGNMENT_RUNS = 3;

/**
 * `asked` with the words it writes differently from `cached` written as `cached` writes them (see
 * the module's comment); `asked` itself when nothing differs only in writing. The steps run again
 * on what they wrote until a run changes nothing (RULE138): a step reads the questions before the
 * steps after it have reworded them, so "Approx how much is a fresh Xmas wreath?" needs "Xmas"
 * written as "Christmas" by one run before the next reads "how much is a fresh Christmas wreath" as
 * "how much does a fresh Christmas wreath cost".
 */
export function alignWording(cached: string, question: string): string {
  let aligned = question;
  for (let run = 0; run < ALIGNMENT_RUNS; run += 1) {
    const again = alignOnce(cached, aligned);
    if (again === aligned) break;
    aligned = again;
  }
  return aligned;
}

/** One run of the alignment's steps. */
function alignOnce(cached: string, question: string): string {
  const theirs = tokensOf(cached);
  const asWritten = tokensOf(question);
  const reordered = inSpeakersOrder(theirs, question, asWritten);
  const asked = reordered ?? question;
  const mine = reordered === undefined ? asWritten : tokensOf(reordered);
  const theirKeys = new Set(theirs.map((token) => token.key));
  const myKeys = new Set(mine.map((token) => token.key));
  /**
   * Replacements by the index of the first asked token they cover: [end token, text, and where the
   * replaced text starts when it is before that token (a currency sign)].
   */
  const edits = new Map<number, Edit>();
  const taken = new Set<number>();
  const edit = (start: number, end: number, text: string, from?: number, to?: number): void => {
    for (let index = start; index < end; index += 1) if (taken.has(index)) return;
    for (let index = start; index < end; index += 1) taken.add(index);
    edits.set(start, {
      end,
      text,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    });
  };
  const theirText = (start: number, end: number) => spanText(cached, theirs, start, end);

  // "DC" on one side, "Washington, DC" (or "D.C.") on the other: one place, either way round.
  const [myDc, theirDc] = [districtOf(mine), districtOf(theirs)];
  if (myDc !== undefined && theirDc !== undefined && myDc.washington !== theirDc.washington)
    edit(myDc.start, myDc.end, theirText(theirDc.start, theirDc.end));

  // A place's name written short as some of its own words (PLACE_SHORT_NAMES, RULE79): "Vegas" /
  // "Las Vegas", either way round, each form only on its side.
  for (const { short, full, offset } of PLACE_NAME_WORDS) {
    const [myShort, theirShort] = [
      shortNameAt(mine, short, full, offset),
      shortNameAt(theirs, short, full, offset),
    ];
    const [myFull, theirFull] = [findRun(mine, full), findRun(theirs, full)];
    if (myShort >= 0 && myFull < 0 && theirFull >= 0 && theirShort < 0)
      edit(myShort, myShort + short.length, theirText(theirFull, theirFull + full.length));
    if (myFull >= 0 && myShort < 0 && theirShort >= 0 && theirFull < 0)
      edit(myFull, myFull + full.length, theirText(theirShort, theirShort + short.length));
  }

  // A clock time with "am" or "pm" on one side and the same time "in the morning", "in the
  // evening" or by its name on the other ("4 AM" / "4 in the morning", "12 pm" / "noon", RULE82).
  const theirClocks = clockTimesIn(cached, theirs);
  for (const time of clockTimesIn(asked, mine)) {
    const other = theirClocks.find(
      (candidate) =>
        candidate.short !== time.short &&
        candidate.hour === time.hour &&
        candidate.minutes === time.minutes &&
        candidate.pm === time.pm,
    );
    if (other !== undefined) edit(time.start, time.end, theirText(other.start, other.end));
  }

  // Degrees written "°F" on one side and "deg F" on the other (RULE109): one key, two texts.
  mine.forEach((token, index) => {
    if (!token.key.startsWith('°')) return;
    const other = theirs.find(({ key, text }) => key === token.key && text !== token.text);
    if (other !== undefined) edit(index, index + 1, other.text);
  });

  // A height in feet and inches written one way on one side and another on the other ("6'4" /
  // "6 foot 4", "5 ft 9" / "5 feet 9 inches", RULE109).
  const theirHeights = heightsIn(cached, theirs);
  for (const height of heightsIn(asked, mine)) {
    const other = theirHeights.find(({ feet, inches }) => feet === height.feet && inches === height.inches);
    const text = other === undefined ? undefined : cached.slice(other.from, other.to);
    if (text !== undefined && text !== asked.slice(height.from, height.to))
      edit(height.start, height.end, text, undefined, height.to);
  }

  // "AM" or "PM" after a day's word on one side, that day's "morning", "afternoon" or "evening" on
  // the other ("tmrw AM" / "tomorrow morning", "this AM" / "this morning", RULE84).
  const dayHalf = (tokens: readonly Token[], at: number, halves: readonly string[]) =>
    halves.includes(tokens[at]?.key ?? '') && DAY_WORDS.has(tokens[at - 1]?.key ?? '');
  for (const [half, parts] of DAY_HALVES) {
    mine.forEach((_, index) => {
      const [mineShort, mineLong] = [dayHalf(mine, index, [half]), dayHalf(mine, index, parts)];
      if (!mineShort && !mineLong) return;
      const day = mine[index - 1]?.key ?? '';
      const at = theirs.findIndex(
        (_other, place) =>
          dayHalf(theirs, place, mineShort ? parts : [half]) && sameDay(day, theirs[place - 1]?.key ?? ''),
      );
      if (at >= 0) edit(index, index + 1, (theirs[at] as Token).text);
    });
  }

  // A number and a half in words on one side, with ".5" on the other, between the same words ("is
  // 15 and a half and" / "is 15.5 and", RULE85), each form only on its side.
  const theirHalves = halvesIn(cached, theirs);
  for (const half of halvesIn(asked, mine)) {
    const sameValue = theirHalves.filter((candidate) => candidate.value === half.value);
    const other = sameValue.find(
      (candidate) =>
        candidate.worded !== half.worded &&
        mine[half.start - 1]?.key === theirs[candidate.start - 1]?.key &&
        mine[half.end]?.key === theirs[candidate.end]?.key,
    );
    if (other !== undefined && sameValue.every((candidate) => candidate.worded !== half.worded))
      edit(half.start, half.end, theirText(other.start, other.end));
  }

  // The same word but for case or apostrophes ("Ive" / "I've"), and words written joined or apart.
  const theirWord = new Map<string, Token>();
  const theirTexts = new Set(theirs.map((other) => other.text));
  const theirPair = new Map<string, number>();
  theirs.forEach((other, at) => {
    if (!theirWord.has(other.key)) theirWord.set(other.key, other);
    const following = theirs[at + 1];
    if (isLetters(other) && isLetters(following) && !theirPair.has(other.key + following.key))
      theirPair.set(other.key + following.key, at);
  });
  mine.forEach((token, index) => {
    const same = theirWord.get(token.key);
    if (same !== undefined) {
      // Written as the cached question writes it somewhere ("O&M ... touch and constant"): stays.
      if (theirTexts.has(token.text)) return;
      // An apostrophe or an ampersand one side only: "Ive" / "I've", "&" / "and"; a negative
      // contraction's apostrophe out of place: "does'nt" / "doesn't" (RULE136; "kid's" / "kids'"
      // stay two words).
      if (
        /['’&]/.test(same.text) !== /['’&]/.test(token.text) ||
        (NEGATIVE_CONTRACTION.test(same.text) && !NEGATIVE_CONTRACTION.test(token.text))
      )
        edit(index, index + 1, same.text);
      return;
    }
    if (!isLetters(token)) return;
    const next = mine[index + 1];
    const joined = isLetters(next) ? theirWord.get(token.key + next.key) : undefined;
    if (joined !== undefined && isLetters(joined) && !myKeys.has(joined.key))
      edit(index, index + 2, joined.text);
    const apart = theirPair.get(token.key);
    if (apart !== undefined) edit(index, index + 1, theirText(apart, apart + 2));
  });

  // An acronym on one side, spelt out on the other; one the list spells out as the other side
  // writes it is the list's ("PSI" is "pounds per square inch", not "per square inch").
  const listedIn = (token: Token, tokens: readonly Token[], own: readonly Token[]) =>
    (ABBREVIATION_WORDS.get(token.key) ?? []).some(
      (words) => findRun(tokens, words) >= 0 && findRun(own, words) < 0,
    );
  // Each cached word spells out one acronym at most ("University" of "NYU" is not the "U" of "US").
  const speltOut = new Set<number>();
  const unspelt = (start: number, end: number) => {
    for (let word = start; word < end; word += 1) if (speltOut.has(word)) return false;
    return true;
  };
  mine.forEach((token, index) => {
    const letters =
      theirKeys.has(token.key) || listedIn(token, theirs, mine) ? undefined : acronymLetters(token);
    if (letters === undefined) return;
    const next = nextWord(mine, index + 1);
    for (let at = 0; at < theirs.length; at += 1) {
      const end = initialsRun(letters, theirs, at, true, next);
      if (
        end !== undefined &&
        spelledOut(theirs, at, end) &&
        !myKeys.has(theirs[at]?.key ?? '') &&
        unspelt(at, end)
      ) {
        for (let word = at; word < end; word += 1) speltOut.add(word);
        edit(index, index + 1, theirText(at, end));
        return;
      }
    }
  });
  // Each acronym once: a long question repeating one would otherwise cost a scan per repeat.
  const acronyms = new Set<string>();
  theirs.forEach((other, place) => {
    const letters =
      myKeys.has(other.key) || acronyms.has(other.key) || listedIn(other, mine, theirs)
        ? undefined
        : acronymLetters(other);
    if (letters === undefined) return;
    acronyms.add(other.key);
    const next = nextWord(theirs, place + 1);
    for (let at = 0; at < mine.length; at += 1) {
      const end = initialsRun(letters, mine, at, true, next);
      if (end !== undefined && spelledOut(mine, at, end) && !theirKeys.has(mine[at]?.key ?? ''))
        edit(at, end, other.text);
    }
  });

  // A state's or province's postal code, in capitals, on one side and its name on the other; with
  // the "state" the name is followed by, where the code is not ("WA" / "Washington state", RULE76).
  const stateAfter = (tokens: readonly Token[], at: number) => tokens[at]?.key === 'state';
  mine.forEach((token, index) => {
    const name = STATE_CODES.get(token.text);
    if (name === undefined || theirKeys.has(token.key)) return;
    const words = keysOf(name);
    const at = findRun(theirs, words);
    if (at < 0 || findRun(mine, words) >= 0) return;
    const state = stateAfter(theirs, at + words.length) && !stateAfter(mine, index + 1);
    edit(index, index + 1, theirText(at, at + words.length + (state ? 1 : 0)));
  });
  theirs.forEach((other, place) => {
    const name = STATE_CODES.get(other.text);
    if (name === undefined || myKeys.has(other.key)) return;
    const words = keysOf(name);
    const at = findRun(mine, words);
    if (at < 0 || findRun(theirs, words) >= 0) return;
    const state = stateAfter(mine, at + words.length) && !stateAfter(theirs, place + 1);
    edit(at, at + words.length + (state ? 1 : 0), other.text);
  });

  // An airport's code, in capitals, on one side and its name or its city on the other (RULE75).
  // A name with the code in it counts where both write the code ("New York JFK" / "JFK").
  mine.forEach((token, index) => {
    const words = airportNameIn(token.text, theirs, mine);
    if (words === undefined || (theirKeys.has(token.key) && !words.includes(token.key))) return;
    const at = findRun(theirs, words);
    edit(index, index + 1, theirText(at, at + words.length));
  });
  for (const other of theirs) {
    const words = airportNameIn(other.text, mine, theirs);
    if (words === undefined || (myKeys.has(other.key) && !words.includes(other.key))) continue;
    const at = findRun(mine, words);
    edit(at, at + words.length, other.text);
  }

  // A century written short after its ordinal on one side and in full on the other ("17th c." /
  // "17th century", "19th-c." / "19th-century", RULE151), either way round; before the units:
  // "c" after a figure is a cup.
  const theirCenturies = centuriesIn(cached, theirs);
  for (const century of centuriesIn(asked, mine)) {
    const other = theirCenturies.find(
      (candidate) => candidate.ordinal === century.ordinal && candidate.short !== century.short,
    );
    if (other !== undefined)
      edit(
        century.start,
        century.end,
        cached.slice(theirs[other.start]?.start, other.to),
        undefined,
        century.to,
      );
  }

  // A unit written short right after a figure, "how many" or "per" on one side and by its name
  // after the same on the other ("240V" / "240 volt", "8 in" / "8 inch", "how many in." / "how many
  // inches"), before the abbreviations: "3000W" is not "3000 with".
  const theirUnits = figureUnitsIn(cached, theirs);
  const myUnits = figureUnitsIn(asked, mine);
  for (const unit of myUnits) {
    const other = theirUnits.find(
      (candidate) =>
        candidate.before === unit.before && candidate.unit === unit.unit && candidate.short !== unit.short,
    );
    if (other !== undefined)
      edit(unit.start, unit.end, cached.slice(theirs[other.start]?.start, other.to), undefined, unit.to);
  }

  // "x" between two figures on one side, "by" between the same two on the other ("12x16 ft" /
  // "12 by 16 feet"), with the same unit of FIGURE_UNITS after the second or none ("a 9x13 pan" is
  // not "a 9-by-13-inch pan"); the units are the other steps'.
  const theirTimes = timesIn(theirs).filter(({ at }) => theirs[at]?.key === 'by');
  const unitAfter = (units: FigureUnit[], figure: number) =>
    units.find(({ start }) => start === figure)?.unit;
  for (const { first, second, at } of timesIn(mine)) {
    const x = mine[at] as Token;
    const other = theirTimes.find((times) => times.first === first && times.second === second);
    if (x.key !== 'x' || other === undefined) continue;
    if (unitAfter(myUnits, at + 1) !== unitAfter(theirUnits, other.at + 1)) continue;
    const glued = mine[at + 1]?.start === x.end;
    edit(at, at + 1, `${(theirs[other.at] as Token).text}${glued ? ' ' : ''}`);
  }

  // A number in a series marked one way on one side and another on the other ("#2" / "no. 2" /
  // "number 2", RULE141).
  const theirMarks = numberMarksIn(cached, theirs);
  for (const mark of numberMarksIn(asked, mine)) {
    const other = theirMarks.find(
      (candidate) => candidate.value === mark.value && candidate.mark !== mark.mark,
    );
    if (
      other === undefined ||
      theirMarks.some((same) => same.value === mark.value && same.mark === mark.mark)
    )
      continue;
    const text = cached.slice(other.from, theirs[other.end - 1]?.end);
    edit(mark.start, mark.end, text, mark.mark === '#' ? mark.from : undefined);
  }

  // How often, with "x" on one side and in words on the other ("2x a week" / "twice a week",
  // RULE146).
  const theirFrequencies = frequenciesIn(cached, theirs);
  for (const frequency of frequenciesIn(asked, mine)) {
    const other = theirFrequencies.find(
      (candidate) =>
        candidate.count === frequency.count &&
        candidate.period === frequency.period &&
        candidate.short !== frequency.short,
    );
    if (other === undefined) continue;
    if (other.slashed === frequency.slashed)
      edit(frequency.start, frequency.end, theirText(other.start, other.end));
    // "3x/day" / "three times a day": the "/" or "a" with the multiplier, up to the period.
    else {
      const [text, to] = [
        cached.slice(theirs[other.start]?.start, theirs[other.at]?.start),
        mine[frequency.at]?.start,
      ];
      edit(frequency.start, frequency.at, text, undefined, to);
    }
  }

  // An age written one way on one side and another on the other, the same figure and unit ("6
  // months old" / "6 mo", "is 80" / "is 80 years old", RULE144).
  const theirAges = agesIn(cached, theirs);
  for (const age of agesIn(asked, mine)) {
    const other = theirAges.find(
      (candidate) =>
        candidate.value === age.value && candidate.unit === age.unit && candidate.said === age.said,
    );
    const text = other === undefined ? undefined : theirText(other.start, other.end);
    if (
      text !== undefined &&
      keysOf(text).join(' ') !== keysOf(spanText(asked, mine, age.start, age.end)).join(' ')
    )
      edit(age.start, age.end, text);
  }

  // Abbreviations and contractions, either way round; a figure written with a k is the thousands
  // step's ("$1k" is not "$onek").
  mine.forEach((token, index) => {
    if (theirKeys.has(token.key) || !Number.isNaN(thousandsAt(mine, index))) return;
    // A figure with letters written onto it is not the number alone: "2nd", "3x", "3BR" (their
    // words were "twond", "threex", which the next run read as typos of "two", "three", RULE138).
    if (/^\p{N}/u.test(token.text) && /^\p{L}/u.test(asked.slice(token.end, token.end + 1))) return;
    const expansions = ABBREVIATION_WORDS.get(token.key) ?? contracted(token.text).map(keysOf);
    for (const words of expansions) {
      const at = findRun(theirs, words);
      if (
        at >= 0 &&
        findRun(mine, words) < 0 &&
        !possessive(token, mine[index + 1], theirs[at + words.length], theirKeys)
      ) {
        edit(index, index + 1, theirText(at, at + words.length));
        return;
      }
    }
  });
  mine.forEach((token, index) => {
    for (const { abbreviation, words } of EXPANSIONS.get(token.key) ?? []) {
      if (!runAt(mine, words, index) || findRun(theirs, words) >= 0) continue;
      const short = theirWord.get(abbreviation);
      if (
        short !== undefined &&
        !myKeys.has(abbreviation) &&
        Number.isNaN(thousandsAt(theirs, theirs.indexOf(short)))
      ) {
        edit(index, index + words.length, short.text);
        return;
      }
    }
  });

  theirs.forEach((other, place) => {
    if (myKeys.has(other.key)) return;
    for (const words of contracted(other.text).map(keysOf)) {
      const at = findRun(mine, words);
      if (
        at >= 0 &&
        findRun(theirs, words) < 0 &&
        !possessive(other, theirs[place + 1], mine[at + words.length], myKeys)
      )
        edit(at, at + words.length, other.text);
    }
  });

  // A price with a currency sign on one side and the currency's name on the other ("$200" / "200
  // dollars", "$1k" / "1,000 dollars"), each only on its side.
  const theirPrices = pricesIn(cached, theirs);
  for (const price of pricesIn(asked, mine)) {
    const other = theirPrices.find(
      (candidate) =>
        candidate.value === price.value && candidate.sign === price.sign && !candidate.named !== !price.named,
    );
    if (
      other === undefined ||
      theirPrices.some((same) => same.value === price.value && !same.named === !price.named)
    )
      continue;
    edit(price.start, price.end, cached.slice(other.from, theirs[other.end - 1]?.end), price.from);
  }

  // Thousands written with a k on one side, in full on the other ("$2k" / "$2,000").
  const theirValues = new Set(theirs.map(figureValue));
  mine.forEach((_, index) => {
    const value = thousandsAt(mine, index);
    if (Number.isNaN(value) || !theirValues.has(value)) return;
    const at = theirs.findIndex((other) => figureValue(other) === value);
    edit(index, index + 2, (theirs[at] as Token).text);
  });
  theirs.forEach((_, at) => {
    const value = thousandsAt(theirs, at);
    if (Number.isNaN(value)) return;
    const index = mine.findIndex((token) => figureValue(token) === value);
    if (index >= 0) edit(index, index + 1, theirText(at, at + 2));
  });

  // Synonyms of one group, each only on its side: every place the asked one is written ("I am ...
  // I am" / "I'm ... I'm", RULE155).
  const theirSynonyms = synonymsIn(theirs);
  for (const [group, at] of synonymsIn(mine)) {
    const other = theirSynonyms.get(group);
    if (other === undefined || other.key === at.key) continue;
    const [words, otherWords] = [at.key.split(' '), other.key.split(' ')];
    if (findRun(theirs, words) >= 0 || findRun(mine, otherWords) >= 0) continue;
    // The n-th place asked is written as the n-th cached, or the last; past the first, a capital
    // only where the asked one has it ("It is ... it is" / "It's ... it's").
    let theirStart = other.start;
    for (let start = at.start; start >= 0; start = findRun(mine, words, start + words.length)) {
      const text = theirText(theirStart, theirStart + otherWords.length);
      const lower = start !== at.start && /^\p{Ll}/u.test((mine[start] as Token).text);
      edit(start, start + words.length, lower ? text.charAt(0).toLowerCase() + text.slice(1) : text);
      const next = findRun(theirs, otherWords, theirStart + otherWords.length);
      if (next >= 0) theirStart = next;
    }
  }

  // An asked word as it reads after the steps so far, the last or first of what replaced it; and
  // whether an asked and a cached word have the same words either side.
  const keyAt = (index: number, last: boolean): string | undefined => {
    const edited = edits.get(index);
    if (edited === undefined || edited.end !== index + 1) return mine[index]?.key;
    const keys = keysOf(edited.text);
    return last ? keys.at(-1) : keys[0];
  };
  const sameNeighbours = (index: number, place: number) =>
    keyAt(index - 1, true) === theirs[place - 1]?.key && keyAt(index + 1, false) === theirs[place + 1]?.key;

  // Spellings and typos: one word only on each side, written without apostrophes; a capitalised
  // word inside the question is a name ("India" / "Indian"), mended only as a typo of a name
  // WordNet knows ("Seatle" / "Seattle"), or of a common word capitalised in a name between the
  // same words ("Levle 2" / "Level 2", "Centrl Park" / "Central Park", RULE64).
  // A word in quotes is the word asked about ("What does 'Reserva' mean?"), never another's typo.
  const quoted = (text: string, token: Token) =>
    /['"‘’“”]/u.test(text[token.start - 1] ?? '') || /['"‘’“”]/u.test(text[token.end] ?? '');
  const lettersOnly = (token: Token) => /^\p{L}+$/u.test(token.text);
  // A possessive's word ("operater's" / "operator's"), only against another possessive (RULE110).
  const possessor = (token: Token) => /^\p{L}+['’]s$/u.test(token.text);
  const capitalised = (token: Token, index: number) => index > 0 && /^\p{Lu}/u.test(token.text);
  // Written as a name: lowercase, or one capital first; not an acronym or a brand ("APR", "iPod").
  const nameLike = (token: Token) => /^\p{Lu}?\p{Ll}+$/u.test(token.text);
  const lettersTheirs = theirs.flatMap((other, at) =>
    lettersOnly(other) || possessor(other)
      ? [{ other, at, spelling: spelt(other.key), named: capitalised(other, at) }]
      : [],
  );
  mine.forEach((token, index) => {
    if (!(lettersOnly(token) || possessor(token)) || theirKeys.has(token.key) || taken.has(index)) return;
    const spelling = spelt(token.key);
    const mineNamed = capitalised(token, index);
    // A typo may be of a word the question also writes right ("bakng soda" / "baking powder").
    const matches = lettersTheirs
      .filter(({ other, at, spelling: theirSpelling, named }) => {
        if (possessor(token) !== possessor(other)) return false;
        const toName =
          nameLike(token) &&
          nameLike(other) &&
          ((!myKeys.has(other.key) && mistyped(other.key, token.key, true)) ||
            mistyped(token.key, other.key, true));
        const inName =
          mineNamed &&
          named &&
          nameLike(token) &&
          nameLike(other) &&
          sameNeighbours(index, at) &&
          ((!myKeys.has(other.key) && mistyped(other.key, token.key, true, true)) ||
            mistyped(token.key, other.key, true, true));
        // A word neither the English list nor WordNet's names has, mistyped (RULE150): read only
        // where nothing above matched, the letters first (most pairs differ in their first).
        const unlisted = () =>
          unlistedTypo(token.key, other.key) &&
          nameLike(token) &&
          nameLike(other) &&
          !quoted(asked, token) &&
          !quoted(cached, other) &&
          sameNeighbours(index, at);
        if (mineNamed || named) return toName || inName || unlisted();
        return (
          (!myKeys.has(other.key) && (theirSpelling === spelling || mistyped(other.key, token.key))) ||
          mistyped(token.key, other.key) ||
          toName ||
          unlisted()
        );
      })
      .map(({ other }) => other);
    const keys = new Set(matches.map((other) => other.key));
    if (keys.size === 1 && matches[0] !== undefined) edit(index, index + 1, matches[0].text);
  });

  // A real word written for another (CONFUSED_WORDS: "to by" / "to buy", "dogs to" / "dogs too"):
  // the asked question writing it more often than the cached one and its partner less often
  // ("cruises to Alaska ... good for them to?"), the words before and after it the same on both (a
  // typo beside it as mended above; the question's start and end are the same): "out of" is not
  // "out off". A capitalised word inside the question is a name, and a quoted word the word asked
  // about ("What does 'affect' mean?"): both left alone.
  const count = (tokens: readonly Token[], key: string) => tokens.filter((token) => token.key === key).length;
  mine.forEach((token, index) => {
    // The list first: the counts scan both questions, and most words have no partner.
    const partners = CONFUSED_WORDS.get(token.key);
    if (partners === undefined || !isLetters(token) || !/^\p{Lu}?[\p{Ll}'’]+$/u.test(token.text)) return;
    if (capitalised(token, index) || taken.has(index) || quoted(asked, token)) return;
    if (count(mine, token.key) <= count(theirs, token.key)) return;
    for (const partner of partners) {
      if (count(theirs, partner) <= count(mine, partner)) continue;
      const at = theirs.findIndex(
        (other, place) =>
          other.key === partner &&
          !capitalised(other, place) &&
          !quoted(cached, other) &&
          sameNeighbours(index, place),
      );
      if (at >= 0) {
        edit(index, index + 1, (theirs[at] as Token).text);
        return;
      }
    }
  });

  // One word for another, each only in its own question, between the same two words, lowercase,
  // not quoted: one with the cached question's in their most frequent senses (RULE62: "a rocky
  // trail" / "a stony trail", "blurry" / "fuzzy"), never of a kind a near miss swaps;
  // or a rare word of the list one edit from a common one, its typo either way (RULE63: "watter").
  const plainWord = (text: string, token: Token, index: number) =>
    /^\p{Lu}?\p{Ll}+$/u.test(token.text) && !capitalised(token, index) && !quoted(text, token);
  const oneWord = (word: string, other: string) =>
    listedTypo(word, other) ||
    (!CLOSED_KINDS.has(word) && !CLOSED_KINDS.has(other) && wordnetFirstSenses(word, other));
  /**
   * Each asked word `asks` takes, not yet edited and only in its own question, written as the first
   * cached word only in the cached question, between the same neighbours, that `fits` it.
   */
  const toCachedWord = (
    asks: (token: Token, index: number) => boolean,
    fits: (token: Token, other: Token, place: number) => boolean,
  ) =>
    mine.forEach((token, index) => {
      if (theirKeys.has(token.key) || taken.has(index) || !asks(token, index)) return;
      const at = theirs.findIndex(
        (other, place) => !myKeys.has(other.key) && sameNeighbours(index, place) && fits(token, other, place),
      );
      if (at >= 0) edit(index, index + 1, (theirs[at] as Token).text);
    });
  toCachedWord(
    (token, index) => plainWord(asked, token, index),
    (token, other, place) => plainWord(cached, other, place) && oneWord(token.key, other.key),
  );

  // A word written short, each only in its own question, between the same words, in lower case
  // (a capital first at the start), not quoted, not right after a figure, where a unit is the
  // units step's to read (RULE72): "Is a permit req'd" / "Is a permit required", "std" / "standard".
  const shortForm = (text: string, tokens: readonly Token[], index: number) => {
    const token = tokens[index] as Token;
    return (
      /^\p{Lu}?\p{Ll}+(?:['’]\p{Ll}+)?$/u.test(token.text) &&
      !capitalised(token, index) &&
      !quoted(text, token) &&
      !/^\p{N}/u.test(tokens[index - 1]?.text ?? '')
    );
  };
  toCachedWord(
    (_token, index) => shortForm(asked, mine, index),
    (token, other, place) =>
      (shortened(token.key, other.key) || shortened(other.key, token.key)) &&
      shortForm(cached, theirs, place),
  );

  // A name written short, each only in its own question, between the same words, both with one
  // capital first, not quoted (RULE165): "bloom time in Melb" / "in Melbourne", "Qld" /
  // "Queensland"; the short one no English word and at most half as long ("Niger" is not
  // "Nigeria", "Austria" not "Australia").
  const nameForm = (text: string, tokens: readonly Token[], index: number) => {
    const token = tokens[index] as Token;
    return /^\p{Lu}\p{Ll}+$/u.test(token.text) && !quoted(text, token);
  };
  toCachedWord(
    (_token, index) => nameForm(asked, mine, index),
    (token, other, place) =>
      (shortName(token.key, other.key) || shortName(other.key, token.key)) && nameForm(cached, theirs, place),
  );

  // A compass point written short in capitals on one side, spelt out (or its adjective) on the
  // other, each only in its own question, between the same words, either way round (RULE88): "a
  // N-facing window" / "a north-facing window", "the Pacific NW" / "the Pacific Northwest".
  const spelledPoint = (short: Token, word: Token) =>
    COMPASS_POINTS.get(short.text)?.includes(word.key) === true;
  mine.forEach((token, index) => {
    if (theirKeys.has(token.key) || taken.has(index) || !COMPASS_POINTS.has(token.text)) return;
    const at = theirs.findIndex(
      (other, place) => !myKeys.has(other.key) && sameNeighbours(index, place) && spelledPoint(token, other),
    );
    // The dot of "S. Korea" goes with the letter.
    const to = asked[token.end] === '.' ? token.end + 1 : undefined;
    if (at >= 0) edit(index, index + 1, (theirs[at] as Token).text, undefined, to);
  });
  toCachedWord(
    (token, index) => plainWord(asked, token, index) || capitalised(token, index),
    (token, other) => spelledPoint(other, token),
  );

  // A figure written for the word it sounds like (texting, RULE78): "good 4 posture" / "good for
  // posture", "how 2 learn" / "how to learn", where the cached question writes the word between
  // the same two words; the figure alone between spaces, between two words of letters ("4-day",
  // "$4", "2 ft" stay). "4" and "four" stay the numbers step's.
  const spaced = (index: number) => {
    const token = mine[index] as Token;
    return asked[token.start - 1] === ' ' && asked[token.end] === ' ';
  };
  mine.forEach((token, index) => {
    const words = SOUNDED_FIGURES.get(token.text);
    if (words === undefined || !spaced(index) || !isLetters(mine[index - 1]) || !isLetters(mine[index + 1]))
      return;
    const at = theirs.findIndex((other, place) => words.includes(other.key) && sameNeighbours(index, place));
    if (at >= 0) edit(index, index + 1, (theirs[at] as Token).text);
  });

  // A comparison in one word against "more" / "most" and a word of its meaning, or "less" /
  // "least" and its opposite, between the same words, either way round, lowercase and not quoted,
  // the degree word not after a figure ("3 more cups" is a quantity) (RULE77): "Which is cheaper"
  // / "Which is less expensive", "the hardest part" / "the most difficult part".
  const degreeAt = (text: string, tokens: readonly Token[], at: number) =>
    DEGREES.has(tokens[at]?.key ?? '') &&
    !/^\p{N}/u.test(tokens[at - 1]?.text ?? '') &&
    tokens[at + 1] !== undefined &&
    plainWord(text, tokens[at + 1] as Token, at + 1);
  mine.forEach((token, index) => {
    if (theirKeys.has(token.key) || taken.has(index) || !plainWord(asked, token, index)) return;
    const at = theirs.findIndex(
      (other, place) =>
        degreeAt(cached, theirs, place) &&
        keyAt(index - 1, true) === theirs[place - 1]?.key &&
        keyAt(index + 1, false) === theirs[place + 2]?.key &&
        sameComparison(token.key, other.key, (theirs[place + 1] as Token).key),
    );
    if (at >= 0) edit(index, index + 1, theirText(at, at + 2));
  });
  mine.forEach((token, index) => {
    const word = mine[index + 1];
    if (word === undefined || theirKeys.has(word.key) || !degreeAt(asked, mine, index)) return;
    const at = theirs.findIndex(
      (other, place) =>
        !myKeys.has(other.key) &&
        plainWord(cached, other, place) &&
        keyAt(index - 1, true) === theirs[place - 1]?.key &&
        keyAt(index + 2, false) === theirs[place + 1]?.key &&
        sameComparison(other.key, token.key, word.key),
    );
    if (at >= 0) edit(index, index + 2, (theirs[at] as Token).text);
  });

  // "how much is X" and "how much does X cost" are one question (X the same words), either way round.
  const [myCost, theirCost] = [howMuch(asked, mine), howMuch(cached, theirs)];
  for (const verb of myCost.is)
    for (const does of theirCost.does)
      if (sameCosted(asked, mine, verb, cached, theirs, does))
        edit(verb, verb + does.cost - does.verb, theirText(does.verb, does.cost + 1));
  for (const does of myCost.does)
    for (const verb of theirCost.is)
      if (sameCosted(cached, theirs, verb, asked, mine, does))
        edit(does.verb, does.cost + 1, theirText(verb, verb + does.cost - does.verb));

  // What a thing is for, asked in one frame and in another, the thing the same words (RULE143).
  const theirPurposes = purposesIn(cached, theirs);
  for (const purpose of purposesIn(asked, mine)) {
    const other = theirPurposes.find(
      (candidate) => candidate.thing === purpose.thing && candidate.frame !== purpose.frame,
    );
    if (other !== undefined) edit(purpose.start, purpose.end, theirText(other.start, other.end));
  }

  // "no" right before a question word is "know" mistyped ("how do I no if"), where the cached
  // question writes "know".
  const know = theirWord.get('know');
  if (know !== undefined && !myKeys.has('know'))
    mine.forEach((token, index) => {
      if (token.key === 'no' && INDIRECT.has(mine[index + 1]?.key ?? '')) edit(index, index + 1, know.text);
    });

  // "a" or "an" on one side and "1" on the other between the same words, as the cached question
  // writes it: "about an hour" / "about 1 hour" (RULE67).
  mine.forEach((token, index) => {
    const one = token.key === '1' ? ['a', 'an'] : token.key === 'a' || token.key === 'an' ? ['1'] : [];
    const at = theirs.findIndex((other, place) => one.includes(other.key) && sameNeighbours(index, place));
    if (at >= 0) edit(index, index + 1, (theirs[at] as Token).text);
  });

  // "a" / "an" before the same word, as the cached question writes it ("an HSA" / "a HSA"); the
  // word may be one reworded above ("a health savings account" / "an HSA").
  mine.forEach((token, index) => {
    if (token.key !== 'a' && token.key !== 'an') return;
    const article = token.key === 'a' ? 'an' : 'a';
    const word = keysOf(edits.get(index + 1)?.text ?? '')[0] ?? mine[index + 1]?.key;
    const at = theirs.findIndex((other, place) => other.key === article && theirs[place + 1]?.key === word);
    if (word !== undefined && at >= 0) edit(index, index + 1, (theirs[at] as Token).text);
  });

  // Two clauses of one sentence exchanged around "and" or "but", the subject said once or twice
  // ("I'm 70 and love air hockey" / "I love air hockey and I'm 70", RULE83), where no step above
  // rewords the stretch.
  const theirPairs = clausePairsIn(cached, theirs);
  for (const pair of clausePairsIn(asked, mine)) {
    const other = theirPairs.find(
      (candidate) =>
        candidate.joiner === pair.joiner &&
        candidate.seconds.includes(pair.first) &&
        pair.seconds.includes(candidate.first),
    );
    if (other !== undefined) edit(pair.start, pair.end, theirText(other.start, other.end));
  }

  // The items of one list in another order, written in the cached question's order (RULE145).
  const list = reorderedList(asked, mine, cached, theirs);
  if (list !== undefined) edit(list.start, list.end, theirText(list.start, list.theirEnd));

  return inCachedOrder(cached, theirs, edits.size === 0 ? asked : written(asked, mine, edits));
}

/** Words that may open a list's item without being the item ("a pothos" / "pothos", RULE145). */
const ITEM_OPENERS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'the',
  'some',
  'my',
  'your',
  'our',
  'his',
  'her',
  'their',
]);
/** The most words a list's item may have (RULE145). */
const ITEM_WORDS = 4;
/** Words that make a list a sequence, whose order is its point ("first sand, then prime and paint"). */
const SEQUENCE_WORDS: ReadonlySet<string> = new Set([
  'first',
  'then',
  'next',
  'finally',
  'last',
  'before',
  'after',
  'second',
  'third',
  'followed',
  'until',
]);

/**
 * The items of a list written in `tokens[from..to)` (RULE145): split at commas, with "and" or "or"
 * before the last item and nowhere else, at least one comma, each item one to ITEM_WORDS words with
 * only spaces or hyphens inside and no word of a sequence; each item's keys without an opening
 * article or possessive, in order. Undefined when the stretch is no such list.
 */
function listItems(text: string, tokens: readonly Token[], from: number, to: number): string[] | undefined {
  const items: string[][] = [[]];
  let commas = 0;
  let joined = false;
  for (let index = from; index < to; index += 1) {
    const token = tokens[index] as Token;
    const current = items.at(-1) as string[];
    if (token.key === 'and' || token.key === 'or') {
      if (joined || index === from) return undefined;
      joined = true;
      if (current.length > 0) items.push([]);
      continue;
    }
    current.push(token.key);
    if (index === to - 1) break;
    const gap = text.slice(token.end, (tokens[index + 1] as Token).start);
    if (/^\s*,\s*$/.test(gap)) {
      if (joined) return undefined;
      commas += 1;
      items.push([]);
    } else if (!/^[\s-]*$/.test(gap)) return undefined;
  }
  if (!joined || commas === 0 || items.some((item) => item.length === 0 || item.length > ITEM_WORDS))
    return undefined;
  if (items.some((item) => item.some((word) => SEQUENCE_WORDS.has(word)))) return undefined;
  return items.map((item) => (ITEM_OPENERS.has(item[0] as string) ? item.slice(1) : item).join(' '));
}

/**
 * Whether the stretch where `asked` and `cached` differ (past the tokens both start and end with) is
 * on each side a list of the same items in another order (RULE145): the asked stretch's tokens and
 * where the cached one ends (both start at the same token).
 */
function reorderedList(
  asked: string,
  mine: readonly Token[],
  cached: string,
  theirs: readonly Token[],
): { start: number; end: number; theirEnd: number } | undefined {
  let start = 0;
  while (start < mine.length && start < theirs.length && mine[start]?.key === theirs[start]?.key) start += 1;
  let shared = 0;
  while (
    shared < mine.length - start &&
    shared < theirs.length - start &&
    mine[mine.length - 1 - shared]?.key === theirs[theirs.length - 1 - shared]?.key
  )
    shared += 1;
  const [end, theirEnd] = [mine.length - shared, theirs.length - shared];
  if (end - start < 3 || theirEnd - start < 3) return undefined;
  const [myItems, theirItems] = [
    listItems(asked, mine, start, end),
    listItems(cached, theirs, start, theirEnd),
  ];
  if (myItems === undefined || theirItems === undefined || myItems.length !== theirItems.length)
    return undefined;
  if (myItems.join('|') === theirItems.join('|')) return undefined;
  const sorted = (items: string[]) => [...items].sort().join('|');
  return sorted(myItems) === sorted(theirItems) ? { start, end, theirEnd } : undefined;
}

/** The verbs a clause's subject is contracted with. */
const CONTRACTED_VERBS: ReadonlyMap<string, string> = new Map([
  ["i'm", 'am'],
  ["i've", 'have'],
  ["we're", 'are'],
  ["we've", 'have'],
]);

/** A clause's subject as its first word writes it, with a contracted verb ("I'm": "i", "am"). */
function subjectOf(token: Token | undefined): readonly string[] | undefined {
  const text = token?.text.toLowerCase().replace('’', "'") ?? '';
  const [subject, verb] = text.split("'");
  if (subject !== 'i' && subject !== 'we') return undefined;
  if (verb === undefined) return [subject];
  const expanded = CONTRACTED_VERBS.get(`${subject}'${verb}`);
  return expanded === undefined ? undefined : [subject, expanded];
}

/**
 * The clause pairs of `text` (RULE83): each stretch between two stops (its start or end, ";", ",",
 * ".", "?", "!", ":", "—") that opens with a subject ("I", "we", "I'm", "we've") and holds "and"
 * or "but" once, not before "then"; each part's words as one clause, the second's subject, where
 * it leaves it out, the first's (the subject alone, or with its contracted verb: "I'm 70 and love
 * hiking", "I'm left-handed and just starting out").
 */
function clausePairsIn(
  text: string,
  tokens: readonly Token[],
): { start: number; end: number; joiner: string; first: string; seconds: string[] }[] {
  const stopBefore = (index: number) =>
    index === 0 || /[;,.?!:—]/u.test(text.slice(tokens[index - 1]?.end, tokens[index]?.start));
  const pairs: { start: number; end: number; joiner: string; first: string; seconds: string[] }[] = [];
  for (let start = 0; start < tokens.length; start += 1) {
    if (!stopBefore(start)) continue;
    let end = start + 1;
    while (end < tokens.length && !stopBefore(end)) end += 1;
    const subject = subjectOf(tokens[start]);
    const joins = tokens
      .slice(start, end)
      .flatMap((token, offset) => (token.key === 'and' || token.key === 'but' ? [start + offset] : []));
    const at = joins[0];
    if (
      subject === undefined ||
      joins.length !== 1 ||
      at === undefined ||
      at + 1 >= end ||
      tokens[at + 1]?.key === 'then'
    )
      continue;
    const keys = (from: number, to: number) => tokens.slice(from, to).map((token) => token.key);
    const clause = (from: number, to: number, own: readonly string[]) =>
      [...own, ...keys(from + 1, to)].join(' ');
    const second = subjectOf(tokens[at + 1]);
    const seconds =
      second !== undefined
        ? [clause(at + 1, end, second)]
        : [subject.slice(0, 1), subject].map((own) => [...own, ...keys(at + 1, end)].join(' '));
    pairs.push({ start, end, joiner: tokens[at]?.key ?? '', first: clause(start, at, subject), seconds });
  }
  return pairs;
}

/** Words that open a subject of two and lose their capital inside the question ("My wife and I"). */
const OPENERS: ReadonlySet<string> = new Set(['my', 'our', 'a', 'the', 'his', 'her', 'their']);

/**
 * "me and" and one to three words on one side, the same number of words and "and I" on the other:
 * one subject, the speaker first or last (RULE81). `asked` written in the cached question's order
 * ("Me and my bf are" / "My boyfriend and I are": "My bf and I are"), where the words are the same
 * or the word after them is; the capital of the question's first word kept. Undefined where
 * nothing is reordered (`mine` is `asked`'s tokens).
 */
function inSpeakersOrder(
  theirs: readonly Token[],
  asked: string,
  mine: readonly Token[],
): string | undefined {
  /** Whether `tokens` hold `count` words of letters from `at` on. */
  const words = (tokens: readonly Token[], at: number, count: number) =>
    tokens.slice(at, at + count).length === count && tokens.slice(at, at + count).every(isLetters);
  const meFirst = (tokens: readonly Token[], at: number, count: number) =>
    tokens[at]?.key === 'me' && tokens[at + 1]?.key === 'and' && words(tokens, at + 2, count);
  const meLast = (tokens: readonly Token[], at: number, count: number) =>
    words(tokens, at, count) && tokens[at + count]?.key === 'and' && tokens[at + count + 1]?.text === 'I';
  const same = (first: number, other: number, count: number, afterMine: number, afterTheirs: number) =>
    mine.slice(first, first + count).every((token, offset) => token.key === theirs[other + offset]?.key) ||
    (mine[afterMine] !== undefined && mine[afterMine]?.key === theirs[afterTheirs]?.key);
  const capital = (text: string) => (text[0] ?? '').toUpperCase() + text.slice(1);
  for (let count = 1; count <= 3; count += 1)
    for (let at = 0; at < mine.length; at += 1) {
      if (meFirst(mine, at, count)) {
        const place = theirs.findIndex(
          (_, other) =>
            meLast(theirs, other, count) && same(at + 2, other, count, at + 2 + count, other + count + 2),
        );
        if (place < 0 || findRun(mine, ['and', 'i']) >= 0) continue;
        const me = mine[at] as Token;
        const said = asked.slice(mine[at + 2]?.start, mine[at + 1 + count]?.end);
        const reordered = `${/^\p{Lu}/u.test(me.text) ? capital(said) : said} and I`;
        return asked.slice(0, me.start) + reordered + asked.slice(mine[at + 1 + count]?.end);
      }
      if (meLast(mine, at, count)) {
        const place = theirs.findIndex(
          (_, other) =>
            meFirst(theirs, other, count) && same(at, other + 2, count, at + count + 2, other + 2 + count),
        );
        if (place < 0 || findRun(mine, ['me', 'and']) >= 0) continue;
        const first = mine[at] as Token;
        const opener =
          at === 0 && OPENERS.has(first.key)
            ? first.key + asked.slice(first.end, mine[at + count - 1]?.end)
            : asked.slice(first.start, mine[at + count - 1]?.end);
        const reordered = `${at === 0 && /^\p{Lu}/u.test(first.text) ? 'Me' : 'me'} and ${opener}`;
        return asked.slice(0, first.start) + reordered + asked.slice(mine[at + count + 1]?.end);
      }
    }
  return undefined;
}

/** `asked` with `edits` (by the first token each covers) written in. */
function written(asked: string, mine: readonly Token[], edits: ReadonlyMap<number, Edit>): string {
  let text = '';
  let writtenTo = 0;
  for (const [start, { end, text: replacement, from, to }] of [...edits].sort(
    ([left], [right]) => left - right,
  )) {
    const before = asked.slice(writtenTo, from ?? mine[start]?.start);
    // "25°C" spelt out is "25 degrees Celsius".
    const joined = /[\p{L}\p{N}]$/u.test(text + before) && /^\p{L}/u.test(replacement);
    text += before + (joined ? ' ' : '') + replacement;
    writtenTo = to ?? mine[end - 1]?.end ?? writtenTo;
    // An "&" written as the cached "and" stands apart from the letters after it too: "B&B" is
    // "B and B".
    if (mine[start]?.text === '&' && /^[\p{L}\p{N}]/u.test(asked.slice(writtenTo, writtenTo + 1)))
      text += ' ';
  }
  return text + asked.slice(writtenTo);
}

/**
 * `asked` with the one stretch it writes as `cached` does with a part moved (moved-part.ts: "last
 * year I paid" / "I paid last year") written in the cached question's order.
 */
function inCachedOrder(cached: string, theirs: readonly Token[], asked: string): string {
  const mine = tokensOf(asked);
  // Each word of the cached question with whether a stop stands before it (RULE87).
  const moved = movedPart(withStops(cached, theirs), mine);
  if (moved === undefined) return asked;
  const { start, end } = moved;
  // With the signs written onto the stretch's first and last words ("$20", "45%"), on both sides.
  const from = (text: string, tokens: readonly Token[]) => attached(text, tokens[start]?.start ?? 0, -1);
  const to = (text: string, tokens: readonly Token[]) =>
    attached(text, tokens[end - 1]?.end ?? text.length, 1);
  return (
    asked.slice(0, from(asked, mine)) +
    cached.slice(from(cached, theirs), to(cached, theirs)) +
    asked.slice(to(asked, mine))
  );
}

/** Where the signs written right before (`step` -1) or after (1) `at` begin or end: "$" of "$20". */
function attached(text: string, at: number, step: -1 | 1): number {
  let place = at;
  const next = () => text[step < 0 ? place - 1 : place] ?? ' ';
  while (/[^\s\p{L}\p{N}]/u.test(next())) place += step;
  return place;
}
