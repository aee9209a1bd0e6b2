/**
 * One picked against several: the same question but for the number of the thing a "which" or a
 * "best" picks ("which fly should I buy" / "which flies", "the best garden tool" / "the best garden
 * tools", "the single best excursion" / "the best excursions"; other nouns may change number with
 * it: "the best spot for a fire extinguisher" / "the best spots for fire extinguishers"). One
 * recommendation is not a list.
 * The words that agree with the noun ("is" / "are", "it" / "them", "a", "one", "single") aside,
 * nothing else may differ, and the pick must stand right before the noun (one shared word between
 * at most), so a generic question stays one: "What does a hawk eat?" / "What do hawks eat?" has
 * "does" between "what" and the noun; "what is the" picks as "what" does ("What's the active
 * compound in wasabi?" / "What are the active compounds ...?", RULE112), and "what are some" too
 * ("What's the best tahini brand?" / "What are some good tahini brands?", RULE113), over two
 * modifiers at most. A noun right after a possessive is no generic either: "How do I thank my
 * bridesmaid in my speech?" / "... my bridesmaids ..." (RULE115), nor one right after "the" or
 * one word past it, unless "does" puts a kind before it ("where should the pocket go" / "the
 * pockets", RULE153). A quoted word is compared as written, and its number is another question
 * whatever picks it ("How do I sign 'book' in ASL?" / "...'books'..."), and so is one against all
 * of a thing, the only word changed ("one of the jets" / "all of the jets"), and one against a
 * count of several or a collective of them ("a dead branch" / "a dozen dead branches", "a good
 * disc" / "a good set of discs", "a candle snuffer" / "my collection of candle snuffers").
 */
import type { GuardRule } from './guard-rule.ts';
import { NUMBER_WORDS } from './hit-guard-words.ts';
import { changedPlaces, soleChange, wordsAndFigures } from './word-sequences.ts';

/** Words that change with a noun's number, or only stress it ("what's" is "what", "s"). */
const AGREEMENT: ReadonlySet<string> = new Set(
  `a an the some is are was were does do has have it them its their this these that those one single s`.split(
    ' ',
  ),
);
/** Words that pick from the things the noun names: "which", "what", "top", and superlatives. */
const PICKS: ReadonlySet<string> = new Set(
  `which what top main favorite favourite most least best worst cheapest easiest safest fastest quickest
  biggest largest smallest tallest highest lowest longest shortest strongest oldest newest latest nearest
  closest hardest simplest healthiest quietest loudest warmest coldest hottest heaviest lightest
  brightest cleanest deepest widest richest prettiest coolest smartest toughest softest sweetest`.split(
    /\s+/,
  ),
);
/** Words that may stand between a pick and its noun besides one shared modifier ("the single best"). */
const BETWEEN: ReadonlySet<string> = new Set(['one', 'single', 'the']);
const IRREGULAR: Readonly<Record<string, string>> = {
  child: 'children',
  man: 'men',
  woman: 'women',
  person: 'people',
  foot: 'feet',
  tooth: 'teeth',
  mouse: 'mice',
};

/** Whether `plural` is `singular`'s plural ("fly" / "flies", "knife" / "knives", "box" / "boxes"). */
function pluralOf(singular: string, plural: string): boolean {
  if (IRREGULAR[singular] === plural) return true;
  if (plural === `${singular}s` || plural === `${singular}es`) return true;
  if (singular.endsWith('y') && plural === `${singular.slice(0, -1)}ies`) return true;
  if (singular.endsWith('fe') && plural === `${singular.slice(0, -2)}ves`) return true;
  return singular.endsWith('f') && plural === `${singular.slice(0, -1)}ves`;
}

/** "most" and "least" make a superlative of the adjective after them ("the most common stitch"). */
const PERIPHRASTIC: ReadonlySet<string> = new Set(['most', 'least']);

/**
 * Whether the word at `index` is picked: a pick before it, with only BETWEEN words and one other
 * word between, or three after "which" or "what" ("which Utah ski resort", RULE91); the adjective
 * after "most" or "least" is part of the pick, and a pick further from the noun counts as none of
 * the three ("what's the most popular Jelly Belly flavor", RULE160).
 */
function pickedAt(tokens: readonly string[], index: number): boolean {
  let modifiers = 0;
  for (let at = index - 1; at >= 0; at -= 1) {
    const word = tokens[at] as string;
    if (QUESTION_PICKS.has(word)) return modifiers <= 3;
    // "what is the" and "what are the" pick too (RULE112): "What's the active compound in wasabi?";
    // and "what are some" (RULE113): "What are some good tahini brands?".
    if (
      QUESTION_ARTICLES.has(word) &&
      COPULAS.has(tokens[at - 1] ?? '') &&
      QUESTION_PICKS.has(tokens[at - 2] ?? '')
    )
      return modifiers <= 3;
    const pick = PICKS.has(word) || PERIPHRASTIC.has(tokens[at - 1] ?? '');
    // A pick further from its noun counts as none: "what is the" before it may reach the noun
    // ("What's the most popular Jelly Belly flavor?", RULE160).
    if (modifiers > 1) {
      if (pick) continue;
      return false;
    }
    if (pick) return true;
    if (BETWEEN.has(word)) continue;
    if (AGREEMENT.has(word)) return false;
    modifiers += 1;
  }
  return false;
}

/** The verb between "what" and "the" or "some": "what is the", "what are some" ("what's": "what", "s"). */
const COPULAS: ReadonlySet<string> = new Set(['s', 'is', 'are', 'was', 'were']);
/** What may follow that verb before the noun and its modifiers (RULE112, RULE113). */
const QUESTION_ARTICLES: ReadonlySet<string> = new Set(['the', 'some']);

/** The picks that ask for a pick: a name of several words may stand between them and the noun. */
const QUESTION_PICKS: ReadonlySet<string> = new Set(['which', 'what']);

/** Superlatives whose plain form is not the word less "est": "best" is "good" or "well". */
const IRREGULAR_SUPERLATIVES: Readonly<Record<string, readonly string[]>> = {
  best: ['good', 'well'],
  worst: ['bad', 'badly'],
  least: ['little'],
  most: ['many', 'much'],
};

/**
 * Whether `superlative` is `plain`'s superlative: "best" / "good", "easiest" / "easy", "cheapest"
 * / "cheap", "biggest" / "big", "nicest" / "nice" (RULE91).
 */
function superlativeOf(superlative: string, plain: string): boolean {
  if (IRREGULAR_SUPERLATIVES[superlative]?.includes(plain)) return true;
  if (!superlative.endsWith('est') || plain.length < 3) return false;
  const stem = superlative.slice(0, -3);
  return (
    stem === plain ||
    `${stem}e` === plain ||
    (stem.endsWith('i') && `${stem.slice(0, -1)}y` === plain) ||
    (stem.length >= 2 && stem.at(-1) === stem.at(-2) && stem.slice(0, -1) === plain)
  );
}

function pickedInAnotherNumber(asked: readonly string[], cached: readonly string[]): boolean {
  const kept = (tokens: readonly string[], other?: readonly string[]) =>
    tokens.flatMap((word, index) =>
      AGREEMENT.has(word) || (PERIPHRASTIC.has(word) && other?.includes(word) === false) ? [] : [index],
    );
  let [mine, theirs] = [kept(asked), kept(cached)];
  // Where the two are not as long, "most" or "least" on one side only may be a superlative let go
  // ("the most active volcano" / "the active volcanoes", RULE91).
  if (mine.length !== theirs.length) [mine, theirs] = [kept(asked, cached), kept(cached, asked)];
  if (mine.length !== theirs.length) return false;
  // Every word that differs is one noun in the other number ("the best spot for a fire
  // extinguisher" / "the best spots for fire extinguishers"), and one of them is picked; a
  // superlative may be let go with it ("is the easiest" / "are easy", RULE91).
  const changed = mine.flatMap((at, place) => {
    const other = theirs[place] as number;
    return asked[at] === cached[other] ? [] : [[at, other] as const];
  });
  if (changed.length === 0) return false;
  const inNumber = ([at, other]: readonly [number, number]) => {
    const [word, theirWord] = [asked[at] as string, cached[other] as string];
    return pluralOf(word, theirWord) || pluralOf(theirWord, word);
  };
  const letGo = ([at, other]: readonly [number, number]) => {
    const [word, theirWord] = [asked[at] as string, cached[other] as string];
    return superlativeOf(word, theirWord) || superlativeOf(theirWord, word);
  };
  const numbers = changed.filter(inNumber);
  const superlatives = changed.length - numbers.length;
  if (superlatives > 1 || !changed.every((pair) => inNumber(pair) || letGo(pair))) return false;
  return numbers.some(
    ([at, other]) =>
      (pickedAt(asked, at) && pickedAt(cached, other)) ||
      ownedAlike(asked, cached, at, other) ||
      namedAlike(asked, cached, at, other),
  );
}

/** Possessive determiners: "my bridesmaid" is one person, "my bridesmaids" several (RULE115). */
const OWNERS: ReadonlySet<string> = new Set(['my', 'your', 'his', 'her', 'our', 'their']);

/**
 * Whether the noun at `at` of `asked` and at `other` of `cached` follows the same possessive right
 * before it (RULE115): "thank my bridesmaid" / "my bridesmaids", "quitclaim my house to my kid" /
 * "my kids". Past a modifier the word may be a verb agreeing with the noun before it ("my income
 * varies" / "my earnings vary" aligned); a word ending in "ss" is a typo's other half ("compas").
 */
function ownedAlike(asked: readonly string[], cached: readonly string[], at: number, other: number): boolean {
  if ((asked[at] as string).endsWith('ss') || (cached[other] as string).endsWith('ss')) return false;
  const owner = asked[at - 1] ?? '';
  return OWNERS.has(owner) && cached[other - 1] === owner;
}

/** Do-support before "the": "What does the panda eat?" asks about the kind, as "pandas" does (RULE153). */
const DO_SUPPORT: ReadonlySet<string> = new Set(['does', 'do', 'did']);
/** Words with an "s" that are no plural of the word without it ("the skin beside" / "besides"). */
const NO_PLURALS: ReadonlySet<string> = new Set(
  `besides towards afterwards backwards forwards upwards downwards onwards outwards inwards anyways
  sometimes`.split(/\s+/),
);

/**
 * Whether the noun at `at` of `asked` and at `other` of `cached` follows "the" on both sides, right
 * before it or with one shared word between (RULE153): "where should the pocket go" / "the
 * pockets", "place the candelabra" / "the candelabras", "the polar plunge" / "the polar plunges".
 * The thing is named, so one and several are other answers. Not where "the" follows "does", "do"
 * or "did" (a kind: "What does the panda eat?" / "What do the pandas eat?"), nor a singular with
 * "'s" after it ("the emu's" / "the emus"), nor a word ending in "ss" ("the compas") or an adverb
 * with an "s" ("the skin beside my knee" / "besides").
 */
function namedAlike(asked: readonly string[], cached: readonly string[], at: number, other: number): boolean {
  const [word, theirWord] = [asked[at] as string, cached[other] as string];
  if (word.endsWith('ss') || theirWord.endsWith('ss') || NO_PLURALS.has(word) || NO_PLURALS.has(theirWord))
    return false;
  const [singular, singularAt] = pluralOf(word, theirWord) ? [asked, at] : [cached, other];
  if (singular[singularAt + 1] === 's') return false;
  return [1, 2].some((back) => {
    if (asked[at - back] !== 'the' || cached[other - back] !== 'the') return false;
    if (DO_SUPPORT.has(asked[at - back - 1] ?? '') || DO_SUPPORT.has(cached[other - back - 1] ?? ''))
      return false;
    const between = asked[at - 1] as string;
    return back === 1 || (between === cached[other - 1] && !AGREEMENT.has(between));
  });
}

/** Quoted strings as written: lowercase words and figures. */
const quotedAsWritten = (text: string): string[] =>
  [...text.matchAll(/'([^'\s][^']{0,199})'(?![a-z])|"([^"]{1,200})"|“([^”]{1,200})”|‘([^’]{1,200})’/g)].map(
    (match) => wordsAndFigures(match.slice(1).find((group) => group !== undefined) ?? '').join(' '),
  );

/** Whether the quoted strings are the same but one, whose last word is in the other number ("'person'" / "'people'"). */
function quotedInAnotherNumber(question: string, candidate: string): boolean {
  const [mine, theirs] = [quotedAsWritten(question), quotedAsWritten(candidate)];
  const place = soleChange(mine, theirs);
  if (place === undefined) return false;
  const [words, theirWords] = [(mine[place] as string).split(' '), (theirs[place] as string).split(' ')];
  const last = soleChange(words, theirWords);
  if (last !== words.length - 1) return false;
  const [word, theirWord] = [words[last] as string, theirWords[last] as string];
  return pluralOf(word, theirWord) || pluralOf(theirWord, word);
}

const ONE: ReadonlySet<string> = new Set(['one', 'single']);
const EVERY: ReadonlySet<string> = new Set(['all', 'every', 'each', 'both']);

/** The words without a "just" or "only" right before "one", which only stresses it. */
const withoutStress = (words: readonly string[]): readonly string[] =>
  words.filter((word, index) => !((word === 'just' || word === 'only') && words[index + 1] === 'one'));

/**
 * Whether the two are the same words but one, "one" or "single" on one side and "all", "every",
 * "each" or "both" on the other: "one of the jets stopped working" / "all of the jets", "cancel one
 * occurrence" / "every occurrence"; or but two or three, each other one a word in the other number
 * or person, the noun itself or its verb, before it or after ("delete one photo" / "all photos",
 * "why does one of my ears feel clogged" / "why do both of my ears"), or two words that agree with
 * a noun ("put it back on" / "put them back on", RULE107). A "just" or "only" before "one" only
 * stresses it. (guard/quantity.ts reads "a" and "this" as one too, and so refuses "a day" / "each
 * day"; beside the verifier only this narrow form is asked.)
 */
function oneAgainstAll(asked: readonly string[], cached: readonly string[]): boolean {
  const [mine, theirs] = [withoutStress(asked), withoutStress(cached)];
  if (mine.length !== theirs.length) return false;
  const changed = changedPlaces(mine, theirs);
  if (changed.length === 0 || changed.length > 3) return false;
  const quantified = changed.filter((at) => {
    const [word, other] = [mine[at] as string, theirs[at] as string];
    return (ONE.has(word) && EVERY.has(other)) || (EVERY.has(word) && ONE.has(other));
  });
  return (
    quantified.length === 1 &&
    changed.every(
      (at) =>
        quantified.includes(at) ||
        agrees(mine[at] as string, theirs[at] as string) ||
        (AGREEMENT.has(mine[at] as string) && AGREEMENT.has(theirs[at] as string)),
    )
  );
}

const PERSON_FORMS: Readonly<Record<string, string>> = { is: 'are', was: 'were', has: 'have', does: 'do' };

/** Whether two words are one in the other number or person: "photo" / "photos", "comes" / "come", "is" / "are". */
function agrees(one: string, other: string): boolean {
  const agree = (singular: string, plural: string) =>
    PERSON_FORMS[singular] === plural || singular === `${plural}s` || singular === `${plural}es`;
  return agree(one, other) || agree(other, one);
}

/** Whether a word counts two or more: a figure, a number word, "dozen" or "dozens". */
function countsSeveral(word: string): boolean {
  if (word === 'dozen' || word === 'dozens') return true;
  const value = Number(NUMBER_WORDS[word] ?? word.replaceAll(',', ''));
  return Number.isFinite(value) && value >= 2;
}

const ONE_OF: ReadonlySet<string> = new Set(['a', 'an', 'one', 'single']);
/**
 * Nouns that gather several of a thing before "of" ("a fleet of rowers", "a collection of fedoras",
 * RULE157); not "pair" (a pair of binoculars is one).
 */
const COLLECTIVES: ReadonlySet<string> = new Set(
  `set fleet pallet pack box bag case crate stack batch bunch bundle carton collection`.split(' '),
);
/**
 * Words a collective may have before it, counted with it: an owner or a size ("my collection of",
 * "a whole collection of", "my entire set of", RULE157).
 */
const BEFORE_COLLECTIVE: ReadonlySet<string> = new Set([
  ...OWNERS,
  'whole',
  'entire',
  'large',
  'big',
  'small',
  'huge',
]);

/**
 * How many words at `at` count several: a count ("a dozen", "three") 1, a collective and "of" 2,
 * with one or two owner or size words before them 3 or 4, else 0.
 */
function severalAt(words: readonly string[], at: number): number {
  const word = words[at] as string;
  if (countsSeveral(word)) return 1;
  let collective = at;
  while (collective - at < 2 && BEFORE_COLLECTIVE.has(words[collective] ?? '')) collective += 1;
  return COLLECTIVES.has(words[collective] ?? '') && words[collective + 1] === 'of' ? collective - at + 2 : 0;
}

/**
 * Whether `cached` counts several of what `asked` has one of: the agreement words aside, `cached`
 * has a count more ("a dozen", "three") or a collective and "of" ("a fleet of"), and the same words
 * but one noun in the other number at most three words after it, which `asked` has "a", "an",
 * "one" or "single" at most three words before: "a dead branch" / "a dozen dead branches", "a good
 * disc" / "a good set of discs", "a single 78 rpm record" / "a large collection of 78 rpm records"
 * (RULE157).
 */
function severalAgainstOne(asked: readonly string[], cached: readonly string[]): boolean {
  const kept = (tokens: readonly string[]) =>
    tokens.flatMap((word, index) => (AGREEMENT.has(word) ? [] : [index]));
  const [mine, theirs] = [kept(asked), kept(cached)];
  const theirWords = theirs.map((at) => cached[at] as string);
  const mineWords = mine.map((at) => asked[at] as string);
  return theirs.some((_, extra) => {
    const size = severalAt(theirWords, extra);
    if (size === 0 || theirs.length !== mine.length + size) return false;
    const rest = theirs.filter((_, index) => index < extra || index >= extra + size);
    const place = soleChange(
      mineWords,
      rest.map((at) => cached[at] as string),
    );
    if (place === undefined) return false;
    const [nounAt, theirNounAt] = [mine[place] as number, rest[place] as number];
    const countEnd = theirs[extra + size - 1] as number;
    if (!pluralOf(asked[nounAt] as string, cached[theirNounAt] as string)) return false;
    if (theirNounAt <= countEnd || theirNounAt - countEnd > 3) return false;
    return [1, 2, 3].some((back) => ONE_OF.has(asked[nounAt - back] ?? ''));
  });
}

export const pickedNumber: GuardRule = {
  reason: 'changed-number',
  refuses: ({ question, candidate }) => {
    const [asked, cached] = [wordsAndFigures(question), wordsAndFigures(candidate)];
    return (
      pickedInAnotherNumber(asked, cached) ||
      oneAgainstAll(asked, cached) ||
      severalAgainstOne(asked, cached) ||
      severalAgainstOne(cached, asked) ||
      quotedInAnotherNumber(question, candidate)
    );
  },
};
