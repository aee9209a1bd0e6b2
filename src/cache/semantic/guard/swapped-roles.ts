/**
 * Roles swapped: the same words, two runs of them trading places around a content word ("can dogs
 * catch colds from humans" / "can humans catch colds from dogs", "butter instead of oil" / "oil
 * instead of butter"), or a person and a verb ("who I have blocked" / "who has blocked me"): who
 * does what to whom changed, the words did not; so persons exchanged ("I hear him" / "he hears me").
 * Around stop words only it is a rewording ("A and B" / "B and A"), and around an "or"
 * alternatives reordered ("Greek yogurt or regular"); but not around "with" after a verb that does
 * something with one thing to another ("replace chicken with seitan" / "replace seitan with
 * chicken", RULE89; "tow a snowmobile with an ATV" / "tow an ATV with a snowmobile", RULE92), nor
 * around an "and" that joins two clauses, after a subject and its verb of being with a word after the
 * parts ("I'm the buyer and the seller wants to back out" / "I'm the seller and the buyer wants
 * ...", RULE87). Around a relation that holds both ways the two things trade places without
 * taking roles ("Is focaccia dough the same as pizza dough?", "tell a crow from a raven", RULE93).
 * A run is the same run with another article in it ("Can a conservator sue the conservatee's
 * family?" / "Can the conservatee's family sue the conservator?", RULE123). And the speaker may
 * take the role of a party the question names ("I'm a roofer and a homeowner blames ..." / "I'm a
 * homeowner and I think my roofer ...", RULE124). After "every", "all" or "each", a member and its
 * kind take sides around a bare "a" or "is" ("Is every stein a tankard?", RULE148).
 */
import { clausePartsExchanged, type Keyed, withStops } from '../moved-part.ts';
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { MONTHS_AND_WEEKDAYS, SEASONS } from './hit-guard-words.ts';
import { ARTICLES, isActor, isContent, isPerson, normalisedSet, normaliseWord } from './normalise.ts';
import { containsPhrase, sameWords } from './word-sequences.ts';

/**
 * Words that join two things without giving either a role: "A and B" is "B and A", "pair A with B"
 * is "pair B with A", "raw in the middle but burnt on top", "how long is the Great Wall" / "the
 * Great Wall is how long". Any other word between the two runs (a content word, or a verb the guard
 * counts as a stop word: "must I give my landlord" / "must my landlord give me") says who does what.
 */
const SYMMETRIC: ReadonlySet<string> = new Set(
  ['and', 'or', 'nor', 'but', 'vs', 'versus', 'plus', 'with', 'a', 'an', 'the', 'is', 'are', 'be'].map(
    (word) => normaliseWord(word)[0] as string,
  ),
);
const takesSides = (word: string) => isContent(word) || !SYMMETRIC.has(word);
/**
 * Where "with" takes sides: after a content word before the first run, past its determiners, a
 * verb that does something with one thing to another ("replace A with B" takes A out and puts B in,
 * RULE89; "tow A with B", "charge A with B", RULE92), unless the word pairs two things alike ("mix",
 * "pair", "swap A with B"), or uses, eats or wears them together ("use AirPods with an Android
 * phone" asks what "use an Android phone with AirPods" does).
 */
const WITH_ALIKE: ReadonlySet<string> = normalisedSet(
  `mix pair combine compare connect match swap trade merge blend link sync mate cross confuse use eat serve drink wear`.split(
    ' ',
  ),
);
const DETERMINERS: ReadonlySet<string> = normalisedSet([...ARTICLES, 'an', 'her', 'some']);
const WITH = normaliseWord('with')[0] as string;
/** The word before the run at `start` of `words`, past its determiners: the verb that gives it a role, if any. */
function wordBefore(words: readonly string[], start: number): string | undefined {
  let before = start - 1;
  while (before >= 0 && DETERMINERS.has(words[before] as string)) before -= 1;
  return words[before];
}
/** Whether "with" between two runs takes sides: the run at `start` of `words` follows a verb that gives it a role. */
function withTakesSides(words: readonly string[], start: number): boolean {
  const word = wordBefore(words, start);
  return isContent(word) && !WITH_ALIKE.has(word);
}
/** Normalised words of a phrase ("the same as" is "same as": articles are not kept apart). */
const phrase = (text: string): string[] => text.split(' ').flatMap((word) => normaliseWord(word));
/**
 * Relations that hold both ways (RULE93): "Is focaccia dough the same as pizza dough?" asks what
 * "Is pizza dough the same as focaccia dough?" does, and so do "similar to", "different from",
 * "compatible with", "confused with", "related to".
 */
const BOTH_WAYS: readonly string[][] = [
  'same as',
  'similar to',
  'different from',
  'differ from',
  'compatible with',
  'interchangeable with',
  'equivalent to',
  'related to',
  'confuse with',
  'confused with',
  'mistaken for',
].map(phrase);
/** Words that may weigh such a relation before it: "easy to confuse with", "often mistaken for". */
const WEIGHING: ReadonlySet<string> = normalisedSet(
  'easy hard to often commonly easily exactly really basically essentially pretty much very so at all'.split(
    ' ',
  ),
);
/** Words a relation is read without: articles and the verb of being. */
const BARE: ReadonlySet<string> = normalisedSet(['a', 'an', 'the', 'is', 'are', 'be']);
/** Verbs after which "from" takes no sides: "separate Asia from Europe", "tell a crow from a raven". */
const SEPARATING: ReadonlySet<string> = normalisedSet(['separate', 'tell', 'distinguish', 'differentiate']);
const FROM = normaliseWord('from')[0] as string;

/**
 * Whether the words between two runs that trade places (`middle`, the first run at `start` of
 * `words`, the second ending at `end`) relate them both ways (RULE93): past the words that take no
 * sides, the shared words after the second run ("focaccia dough the same as pizza dough"), the
 * shared words before the first said again before the second ("baby slings differ from baby
 * carriers", RULE147) and words that only weigh, a relation that holds both ways, or "from" after
 * a separating verb.
 */
function relatesBothWays(
  middle: readonly string[],
  words: readonly string[],
  start: number,
  end: number,
): boolean {
  let rest = middle.filter((word) => !BARE.has(word));
  let shared = 0;
  while (shared < rest.length && rest[shared] === words[end + shared]) shared += 1;
  rest = rest.slice(shared);
  // The two things' shared first words, said again before the second ("baby slings differ from baby
  // carriers", RULE147): the second thing's, not the relation's.
  let head = 0;
  while (head < rest.length && rest[rest.length - 1 - head] === words[start - 1 - head]) head += 1;
  rest = rest.slice(0, rest.length - head);
  if (rest.length === 1 && rest[0] === FROM) return SEPARATING.has(wordBefore(words, start) ?? '');
  while (rest.length > 0 && WEIGHING.has(rest[0] as string)) rest = rest.slice(1);
  return BOTH_WAYS.some(
    (relation) => relation.length === rest.length && relation.every((word, at) => word === rest[at]),
  );
}

/** Words that make the run after them a kind's every member ("every", "all", "each"). */
const EVERY: ReadonlySet<string> = normalisedSet(['every', 'all', 'each']);
/**
 * Whether the two runs are a member and its kind (RULE148): after "every", "all" or "each", with
 * only articles and the verb of being between them ("Is every stein a tankard?" / "Is every tankard
 * a stein?"), which is which is the question.
 */
function kindAndMember(middle: readonly string[], words: readonly string[], start: number): boolean {
  return EVERY.has(words[start - 1] ?? '') && middle.every((word) => BARE.has(word));
}

/**
 * Words that offer the two runs as alternatives: around them the runs trade places without taking
 * roles, whatever else stands between ("Greek yogurt or regular" / "regular yogurt or Greek").
 */
const ALTERNATIVES: ReadonlySet<string> = new Set(
  ['or', 'vs', 'versus'].map((word) => normaliseWord(word)[0] as string),
);

/**
 * Words that open a subordinate clause or an adverbial ("before painting a vintage dresser", "as a
 * 3.5 player", "even though I water them"): such a run put at the other end of the question moves
 * with its clause, and takes no one's role (bench/data/reserved/rules/RULE54.md). "to" is not one
 * ("from my old iPhone" / "to a new iPhone" would pass, and so would a direction).
 */
const CLAUSE_OPENERS: ReadonlySet<string> = new Set(
  [
    'before',
    'after',
    'when',
    'whenever',
    'if',
    'since',
    'while',
    'until',
    'once',
    'because',
    'though',
    'although',
    'as',
    'even',
    'unless',
  ].map((word) => normaliseWord(word)[0] as string),
);
const opensClause = (run: readonly string[]) => CLAUSE_OPENERS.has(run[0] as string);

/**
 * Words that open a phrase of place, time or purpose put at the front of a question (RULE116): a
 * preposition ("On the Autobahn in Germany, is hitchhiking legal?", "To avoid tear-out, what blade
 * ...?", "Instead of canning jam, can I freeze it?"), a day or a month ("Yesterday at the beach I
 * think my ring slipped off"); "may" is mostly a verb and left out.
 */
const FRONTED_OPENERS: ReadonlySet<string> = normalisedSet([
  ...`in on at by for to from during instead with without inside outside near around over under through
  across within yesterday today tonight tomorrow`.split(/\s+/),
  ...MONTHS_AND_WEEKDAYS,
]);
/** Words that make a time of the word after them ("this morning", "last night", "every time"). */
const TIME_LEADS: ReadonlySet<string> = normalisedSet(['this', 'last', 'next', 'every', 'each']);
const TIMES: ReadonlySet<string> = normalisedSet([
  ...'morning night evening afternoon day week weekend month year time season'.split(' '),
  ...SEASONS,
]);
/** Whether a run opens with a phrase of place, time or purpose (RULE116). */
const opensFrontedPhrase = (run: readonly string[]) =>
  FRONTED_OPENERS.has(run[0] as string) || (TIME_LEADS.has(run[0] as string) && TIMES.has(run[1] as string));

const THE = normaliseWord('the')[0] as string;
const A_AN_THE: ReadonlySet<string> = normalisedSet(['a', 'an', 'the']);
/** A run's words with "a", "an" and "the" read alike. */
const articlesAlike = (words: readonly string[]): string[] =>
  words.map((word) => (A_AN_THE.has(word) ? THE : word));

/**
 * Whether `other` is `last`, `middle` and `first` in that order: the two runs traded places, each
 * with "a", "an" and "the" read alike ("a conservator" / "the conservator", RULE123), the words
 * between them as written (a clause moved past "a fence" / "the fence" is no swap).
 */
function tradedRuns(
  other: readonly string[],
  first: readonly string[],
  middle: readonly string[],
  last: readonly string[],
): boolean {
  const [lastEnd, middleEnd] = [last.length, last.length + middle.length];
  return (
    sameWords(articlesAlike(other.slice(0, lastEnd)), articlesAlike(last)) &&
    sameWords(other.slice(lastEnd, middleEnd), middle) &&
    sameWords(articlesAlike(other.slice(middleEnd)), articlesAlike(first))
  );
}

/** How far past the shared start and end two runs that open or end alike may reach (RULE117). */
const REACH = 2;

/**
 * Whether `a` and `b` between `start` and `end` are two runs that trade places around at least
 * one word that takes sides (X M Y against Y M X), with the exceptions `rolesSwapped` says.
 */
function tradedAround(a: readonly string[], b: readonly string[], start: number, end: number): boolean {
  const inner = a.slice(start, end);
  const other = b.slice(start, end);
  for (let x = 1; x < inner.length; x += 1) {
    for (let y = 1; x + y < inner.length; y += 1) {
      const [first, middle, last] = [
        inner.slice(0, x),
        inner.slice(x, inner.length - y),
        inner.slice(inner.length - y),
      ];
      const sided =
        middle.some(takesSides) ||
        (middle.includes(WITH) && withTakesSides(a, start)) ||
        kindAndMember(middle, a, start);
      if (!sided || !first.some(isActor) || !last.some(isActor)) continue;
      if (middle.some((word) => ALTERNATIVES.has(word))) continue;
      if (!tradedRuns(other, first, middle, last)) continue;
      // Two things around a relation that holds both ways take no roles (RULE93).
      if (relatesBothWays(middle, a, start, end)) continue;
      // A phrase of place, time or purpose put first: from the first word, one of the runs opens
      // with it ("I got stung in Hawaii this morning" / "This morning in Hawaii I got stung",
      // RULE116). Further in, "from A to B" / "from B to A" trade places around a preposition.
      if (start === 0 && (opensFrontedPhrase(first) || opensFrontedPhrase(last))) continue;
      // Roles swapped, unless one of the two runs is a clause that moved.
      if (!opensClause(first) && !opensClause(last)) return true;
    }
  }
  return false;
}

/**
 * Whether two questions are the same words but for two runs of them that trade places around at
 * least one word that takes sides (X M Y against Y M X), everything before and after alike: a clause put
 * elsewhere changes the words around it ("change the oil in my car" / "get my car's oil changed"),
 * a swap of roles does not. Nor does a subordinate clause moved to the other end: when each way
 * the runs trade places has one of them opening a clause, no roles are swapped; nor a phrase of
 * place, time or purpose put at the front (RULE116). Runs that open or end alike are found past the
 * shared start and end (RULE117: "sloth moths" / "sloths").
 */
function rolesSwapped(asked: Features, cached: Features): boolean {
  const a = asked.words;
  const b = cached.words;
  if (a.length !== b.length || sameWords(a, b)) return false;
  let start = 0;
  while (a[start] === b[start]) start += 1;
  let end = a.length;
  while (end > start && a[end - 1] === b[end - 1]) end -= 1;
  const inner = a.slice(start, end);
  const other = b.slice(start, end);
  // A person and a verb phrase trading places: subject and object swapped ("who I have blocked" /
  // "who has blocked me").
  for (let x = 1; x < inner.length; x += 1) {
    const [first, last] = [inner.slice(0, x), inner.slice(x)];
    const person = (run: string[]) => run.length === 1 && isPerson(run[0] as string);
    if (
      ((person(first) && last.some(isContent)) || (person(last) && first.some(isContent))) &&
      sameWords(other, [...last, ...first])
    )
      return true;
  }
  // The runs may open or end alike, and the shared start or end take their first or last words
  // ("sloth moths" / "sloths", "C major" / "G major", RULE117): look from up to two words before
  // and after too.
  for (let back = 0; back <= Math.min(REACH, start); back += 1)
    for (let on = 0; on <= Math.min(REACH, a.length - end); on += 1)
      if (tradedAround(a, b, start - back, end + on)) return true;
  return false;
}

/** Personal pronouns by person: first, second, third. */
const PERSONS: readonly ReadonlySet<string>[] = [
  'i me my mine myself we us our ours ourselves',
  'you your yours yourself yourselves',
  'he him his himself she her hers herself they them their theirs themselves',
].map((words) => new Set(words.split(' ')));
const personOf = (token: string): number => PERSONS.findIndex((person) => person.has(token));
/** Auxiliaries that agree with their subject ("do I" / "does he", "am" / "is"). */
const AGREEING: ReadonlySet<string> = new Set('am is are was were do does have has'.split(' '));
const JOINED: ReadonlySet<string> = new Set(['and', 'or']);

/**
 * Whether the persons trade places, nothing else changed (RULE71): the same number of words, each
 * that differs a personal pronoun of another person in the other question (or an auxiliary agreeing
 * with it), and among them one person becoming another and that other becoming the first ("Why can
 * I hear him on CB but he can't hear me?" / "Why can he hear me on CB but I can't hear him?", "how
 * do I add him as a user on my card" / "how do I add myself as a user on his card"). Two pronouns
 * joined by "and" or "or" trading places are the same two ("him and me" / "me and him"), and so
 * are two clauses around "or" ("Should I call him or should he call me?" / the reverse).
 */
function personsExchanged(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const moves = new Set<string>();
  const changed: number[] = [];
  for (let index = 0; index < a.length; index += 1) {
    const [mine, theirs] = [a[index] as string, b[index] as string];
    if (mine === theirs) continue;
    const [from, to] = [personOf(mine), personOf(theirs)];
    if (from >= 0 && to >= 0 && from !== to) {
      moves.add(`${from}${to}`);
      changed.push(index);
    } else if (!AGREEING.has(mine) || !AGREEING.has(theirs)) return false;
  }
  if (changed.some((index) => changed.includes(index + 2) && JOINED.has(a[index + 1] as string)))
    return false;
  const between = a.slice(changed[0], changed.at(-1));
  if (between.some((token) => ALTERNATIVES.has(normaliseWord(token)[0] as string))) return false;
  return [...moves].some((move) => moves.has(`${move[1]}${move[0]}`));
}

/** Lowercase words and figures, apostrophes kept ("we're"). */
const wordsOf = (text: string): string[] =>
  text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
/** Words that open a clause without belonging to it ("..., and we're worried"). */
const JOINING: ReadonlySet<string> = new Set(['and', 'but', 'so', 'or', 'then']);

/** A question's clauses as words, split at , ; : . ? ! and a joining word opening one dropped. */
function clausesOf(text: string): string[][] {
  return text
    .split(/[,;:.?!]+(?:\s+|$)/u)
    .map((clause) => {
      const words = wordsOf(clause);
      return JOINING.has(words[0] ?? '') ? words.slice(1) : words;
    })
    .filter((words) => words.length > 0);
}

/**
 * Whether one question is the other's clauses put in another order: the same words, and each clause
 * of one a run of words in the other ("We're planning a wedding in July, and we're worried about the
 * heat; how ..." / "We're worried about the heat, and we're planning a wedding in July; how ...").
 * Roles swap inside a clause; a clause moved whole keeps its own.
 */
function clausesMoved(question: string, candidate: string): boolean {
  const [mine, theirs] = [wordsOf(question), wordsOf(candidate)];
  if (mine.length !== theirs.length || [...mine].sort().join(' ') !== [...theirs].sort().join(' '))
    return false;
  const whole = (clauses: string[][], text: readonly string[]) =>
    clauses.length > 1 && clauses.every((clause) => containsPhrase(text, clause));
  return whole(clausesOf(question), theirs) || whole(clausesOf(candidate), mine);
}

/** A question's words as the wording step keys them, each with whether a stop stands before it. */
const keyed = (text: string): Keyed[] =>
  withStops(
    text,
    [...text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)].map((word) => ({
      key: word[0].toLowerCase().replace(/['’]/g, ''),
      start: word.index,
      end: word.index + word[0].length,
    })),
  );

/**
 * Where the speaker's role is in `features`: past the first "I'm" (or "I am") and its "a", "an" or
 * "the", the run of content words up to the first other word or a word in "-ing" ("I'm an
 * optometrist co-managing ...": "optometrist co"); none without the article ("I'm permitted to").
 */
function speakerRole(features: Features): [number, number] | undefined {
  const { tokens, words } = features;
  const at = tokens.findIndex((token, index) => token === 'i' && tokens[index + 1] === 'am');
  if (at < 0 || !A_AN_THE.has(words[at + 2] as string)) return undefined;
  const start = at + 3;
  let end = start;
  while (end < words.length && isContent(words[end] as string) && !(tokens[end] as string).endsWith('ing'))
    end += 1;
  return end > start ? [start, end] : undefined;
}

/**
 * Whether the speaker took the role of a party the question names (RULE124): a word of one side's
 * role that the other role lacks is named elsewhere on the other side, and the other way round
 * ("I'm an optometrist ...; what records should I send to the surgeon?" / "I'm a LASIK surgeon
 * ...; ... send to the optometrist?", "I'm a homeowner and I think my roofer ..." / "I'm a roofer
 * and a homeowner blames ..."). The same words in another order name the same roles ("I'm a mom
 * and a nurse" / "I'm a nurse and a mom").
 */
function speakerExchanged(asked: Features, cached: Features): boolean {
  const [mine, theirs] = [speakerRole(asked), speakerRole(cached)];
  if (mine === undefined || theirs === undefined) return false;
  if (sameWords([...asked.words].sort(), [...cached.words].sort())) return false;
  const split = (words: readonly string[], [start, end]: [number, number]) => ({
    role: words.slice(start, end),
    rest: [...words.slice(0, start), ...words.slice(end)],
  });
  const [one, other] = [split(asked.words, mine), split(cached.words, theirs)];
  const namedIn = (from: typeof one, to: typeof one) =>
    from.role.some((word) => !to.role.includes(word) && to.rest.includes(word));
  return namedIn(one, other) && namedIn(other, one);
}

export const swappedRoles: GuardRule = {
  reason: 'swapped',
  refuses: ({ asked, cached, question, candidate }) =>
    (rolesSwapped(asked, cached) && !clausesMoved(question, candidate)) ||
    personsExchanged(asked.tokens, cached.tokens) ||
    speakerExchanged(asked, cached) ||
    // Two parts exchanged around an "and" that joins two clauses (RULE87): "I'm the buyer and the
    // seller wants to back out" / "I'm the seller and the buyer wants to back out".
    clausePartsExchanged(keyed(candidate), keyed(question)),
};
