/**
 * Narrowing: one question is the other plus a word put right before a word both share ("beach
 * volleyball" / "volleyball", "gaming laptop" / "laptop"), or right after a number both share
 * ("Galaxy S24 Ultra" / "Galaxy S24"): a narrower subject, with its own answer. A word added after
 * a shared one is a rewording ("capital city" / "capital"), unless it names a part of it (PARTS:
 * "oven racks" / "oven", "a quilt backing" / "a quilt"; or a part WordNet names, as written, not
 * after a name, RULE68: "a candle wick", "an escalator handrail"), or follows it made possessive ("my drone" / "my
 * drone's camera gimbal"). A hyphenated word counts too ("skin-on
 * salmon", "watt-hours" / "watts"), and "used" before a noun. Adverbs and a few words that only
 * weigh ("good", "best", "simple") are not narrowing, nor "percent" after a figure the other
 * question writes with "%" ("a 5 percent raise" / "a 5% raise"). The thing may give up its article
 * for the part or the count put in ("a harp" / "harp strings", "a birdhouse" / "several
 * birdhouses", RULE94). A part named before its thing with a preposition ("the stitching on a
 * leather bag") is named-part.ts's.
 */
import { isEnglishWord } from './english-words.ts';
import type { Features } from './features.ts';
import { type GuardRule, SAME_FRAME } from './guard-rule.ts';
import { ARTICLES, isContent, normalisedSet, normaliseWord } from './normalise.ts';
import { commonStart, commonWords } from './word-sequences.ts';
import { wordnetParts } from './wordnet.ts';

/** Added words that only weigh or colour the question, never narrow its subject. */
const NOT_NARROWING: ReadonlySet<string> = normalisedSet(
  `good best better great nice simple easy easiest quick quickest fast proper right correct exact actual real
  main basic general typical common usual whole entire own specific particular certain really actually
  exactly just still even also ever usually generally typically normally`.split(/\s+/),
);

/** Articles and possessive words, which a thing may give up when a part of it is named (RULE94). */
const DETERMINERS: ReadonlySet<string> = normalisedSet([...ARTICLES, 'an', 'her']);

/** Parts of a thing, named right after it ("oven racks", "quilt backing", "listing title", "burn blister"). */
const PARTS: ReadonlySet<string> = normalisedSet(
  `rack racks shelf shelves door doors lid lids handle handles hinge hinges knob knobs sleeve sleeves
  backing lining binding hem collar cuff cuffs zip zips zipper zippers pocket pockets strap straps sole
  soles heel heels laces buckle title titles headline thumbnail caption topping toppings crust filling
  frosting icing glaze rind peel stem stems roots petals bark trunk branches blade blades motor battery
  batteries charger cable cord plug port ports screen keyboard trackpad speaker speakers fan fans
  filter filters hose hoses valve valves pump belt chain brakes tires tire wheels wheel pedals seat
  seats cushion cushions frame frames legs lens lenses grout tiles caulk gasket drain faucet spout
  nozzle tank cover covers case roof gutters chimney foundation walls floor floors ceiling window
  windows blister blisters scar stitches bumper hood engine mirror mirrors headlights wipers dashboard
  upholstery interior exterior mats spokes rim rims saddle grips`.split(/\s+/),
);

/** WordNet's parts (wordnet.ts), once they have loaded. */
let partsOfWordnet: ReadonlySet<string> | undefined;

/** Whether a lowercase word as written, or its singular, is a noun WordNet names a part of a thing. */
function wordnetPart(written: string): boolean {
  if (partsOfWordnet === undefined) {
    const words = wordnetParts();
    if (words.length === 0) return false;
    partsOfWordnet = new Set(words);
  }
  const parts = partsOfWordnet;
  return [written, written.replace(/s$/, ''), written.replace(/es$/, '')].some((form) => parts.has(form));
}

const escaped = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `word` (normalised) names a part of the thing `previous` names, right before it in
 * `text`: in PARTS; or a noun WordNet names a part, as written ("a candle wick", "an escalator
 * handrail", RULE68), in the same phrase (no punctuation between: "...mountain? Cheers." is no
 * part), never after a name, where WordNet's parts are mostly what the name is ("the Mississippi
 * River", "Stanford University", "the Golden Gate Bridge"), nor where the other question writes a
 * symbol right after the shared word.
 */
function namesPart(
  mine: Features,
  theirs: Features,
  word: string,
  previous: string,
  text: string,
  theirText: string,
): boolean {
  if (PARTS.has(word)) return true;
  if (mine.names.has(previous) || theirs.names.has(previous)) return false;
  const [written, before] = [mine.written.get(word), mine.written.get(previous)];
  if (written === undefined || before === undefined || !wordnetPart(written)) return false;
  // The other question writing a symbol right after the shared word writes the same ("humidity %"
  // / "humidity percentage", "the extra $$" / "the extra money"), RULE69.
  const after = theirs.written.get(previous) ?? before;
  if (new RegExp(`(?<![\\p{L}\\p{N}])${escaped(after)}\\s*[%$#&]`, 'iu').test(theirText)) return false;
  return new RegExp(
    `(?<![\\p{L}\\p{N}])${escaped(before)}[\\s-]+${escaped(written)}(?![\\p{L}\\p{N}])`,
    'iu',
  ).test(text);
}

/** Whether `text` writes `word` (lowercase, as the features keep it) with a capital: "USA Powerlifting". */
const capitalisedIn = (text: string, word: string): boolean =>
  /^\p{Lu}/u.test(
    new RegExp(`(?<![\\p{L}\\p{N}])${escaped(word)}(?![\\p{L}\\p{N}])`, 'iu').exec(text)?.[0] ?? '',
  );

/** "Percent" as the guard's words read it. */
const PERCENT: ReadonlySet<string> = normalisedSet(['percent']);

/** Whether a number `text` writes before "percent" the other question writes with "%" ("20 percent" / "20%"). */
const percentSign = (text: string, theirText: string): boolean =>
  [...text.matchAll(/(\d+(?:[.,]\d+)*)\s*(?:percent|per cent)\b/gi)].some(([, number = '']) =>
    new RegExp(`(?<![\\d.,])${escaped(number)}\\s*%`).test(theirText),
  );

/**
 * Whether `mine` is `theirs` with words put in (every word of `theirs` is in `mine`, in order), one
 * of them a modifier: right before a content word both share, or right after a number.
 */
function narrows(
  mine: Features,
  theirs: Features,
  added: readonly string[],
  text: string,
  theirText: string,
): boolean {
  const narrowing = added.filter(
    (word) =>
      !NOT_NARROWING.has(word) &&
      !word.endsWith('li') &&
      !(PERCENT.has(word) && percentSign(text, theirText)),
  );
  // "Used" is a stop word ("how do I use"), and a narrowing one before a noun ("used solar panels").
  if (mine.tokens.includes('used') && !theirs.tokens.includes('used'))
    narrowing.push(...normaliseWord('used'));
  if (narrowing.length === 0) return false;
  // Every word of the other question is here, in order; or all but an article or a possessive
  // word, given up for a part named or a count ("a harp" / "harp strings", "a range hood" / "the
  // range hood filters", "a birdhouse" / "several birdhouses"), where each word put in is an
  // English word and no name ("the Switch" / "Nintendo Switch" is the same thing), RULE94.
  const bare = (words: readonly string[]) => words.filter((word) => !DETERMINERS.has(word));
  const plain = (word: string) => {
    const written = mine.written.get(word);
    return (
      !mine.names.has(word) &&
      written !== undefined &&
      isEnglishWord(written) === true &&
      !capitalisedIn(text, written)
    );
  };
  if (
    commonWords(mine.words, theirs.words) < theirs.words.length &&
    !(
      narrowing.every(plain) && commonWords(bare(mine.words), bare(theirs.words)) >= bare(theirs.words).length
    )
  )
    return false;
  const beforeShared = mine.words.some((word, index) => {
    const next = mine.words[index + 1];
    return narrowing.includes(word) && isContent(next) && theirs.content.has(next);
  });
  if (beforeShared) return true;
  // A part of a shared thing, named right after it ("oven racks" / "oven").
  const partAfterShared = mine.words.some((word, index) => {
    const previous = mine.words[index - 1];
    return (
      narrowing.includes(word) &&
      isContent(previous) &&
      theirs.content.has(previous) &&
      namesPart(mine, theirs, word, previous, text, theirText)
    );
  });
  if (partAfterShared) return true;
  // A hyphenated word with a word added to a shared one ("kilowatt-hours" / "kilowatts"), or a
  // hyphenated modifier before a shared word ("bone-in chicken").
  const shared = (word: string | undefined) => isContent(word) && theirs.content.has(word);
  if (
    mine.compounds.some(
      ({ parts, next }) =>
        parts.some((part) => narrowing.includes(part)) &&
        (shared(next) || parts.some((part) => !narrowing.includes(part) && shared(part))),
    )
  )
    return true;
  // After a number ("iPhone 15 Pro"): the number is in both (sameNumbers held), the word only here.
  return [...text.matchAll(/\d\s+([A-Za-z]+)/g)].some(([, word = '']) =>
    normaliseWord(word.toLowerCase()).some((each) => narrowing.includes(each)),
  );
}

/** Whether `mine` from `from` on is `theirs` from `theirsFrom` on. */
const endsAlike = (mine: readonly string[], theirs: readonly string[], from: number, theirsFrom: number) =>
  mine.slice(from).every((word, index) => word === theirs[theirsFrom + index]);

/** Lowercase words as written, a possessive 's kept on its word ("drone's"). */
const possessiveWords = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/’/g, "'")
    .match(/[\p{L}\p{N}]+(?:'s\b)?/gu) ?? [];

/** Words whose 's is "is" or "has" ("that's nut-free", "what's"), never a possessive. */
const NOT_POSSESSIVE: ReadonlySet<string> = new Set(
  `that it what there here who he she let where how when why this which someone something everyone everything nobody nothing`.split(
    ' ',
  ),
);

/**
 * Whether `mine` is `theirs` with one of its words made possessive and one to three words put right
 * after it ("my drone's camera gimbal" / "my drone"): a part of the thing, or something of it.
 */
function possessedPart(mine: readonly string[], theirs: readonly string[]): boolean {
  const added = mine.length - theirs.length;
  if (added < 1 || added > 3) return false;
  const at = commonStart(mine, theirs);
  const word = mine[at] ?? '';
  return (
    word.endsWith("'s") &&
    !NOT_POSSESSIVE.has(word.slice(0, -2)) &&
    theirs[at] === word.slice(0, -2) &&
    endsAlike(mine, theirs, at + 1 + added, at + 1)
  );
}

export const narrowerSubject: GuardRule = {
  reason: 'narrower',
  refuses: (pair) => {
    const [mine, theirs] = [possessiveWords(pair.question), possessiveWords(pair.candidate)];
    if (possessedPart(mine, theirs) || possessedPart(theirs, mine)) return true;
    return (
      pair.frame >= SAME_FRAME &&
      ((pair.onlyCached.length === 0 &&
        narrows(pair.asked, pair.cached, pair.onlyAsked, pair.question, pair.candidate)) ||
        (pair.onlyAsked.length === 0 &&
          narrows(pair.cached, pair.asked, pair.onlyCached, pair.candidate, pair.question)))
    );
  },
};
