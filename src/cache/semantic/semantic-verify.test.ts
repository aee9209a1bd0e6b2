/**
 * The lookup's verification step on a real ResponseCache over the memory store, with given vectors
 * (no embedding model) and verifiers that answer as told: a refusal, a slow answer and a failure
 * are misses (counted by reason), never errors; one verification per lookup at most.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.ts';
import { MemoryRuntimeStore } from '../../stores/memory-runtime-store.ts';
import { createCacheMetrics } from '../cache-metrics.ts';
import { ResponseCache } from '../response-cache.ts';
import { CacheScopeMirror } from '../scope-mirror.ts';
import { DepthValve } from './depth-valve.ts';
import { type Embedder, normalise } from './embedder.ts';
import {
  type PairVerifier,
  VERIFIER_CHANGED_WORDS_SCORE,
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  VERIFIER_SYNONYM_WORDS,
  VERIFIER_WORDNET_SYNONYM_WORDS,
  VERIFIER_WORDS_OVERRULE,
} from './pair-verifier.ts';
import { SemanticCache } from './semantic-cache.ts';
import { createSemanticMetrics } from './semantic-metrics.ts';

const stores: MemoryRuntimeStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** One vector for every question: every candidate is a perfect match, so only the verifier decides. */
const vector = normalise(Float32Array.from({ length: 8 }, (_, index) => index + 1));

const YEN = ['How many yen is 50 dollars?', 'How many yen are 50 dollars worth?'];
const LUGGAGE = ['How much luggage can I check on a domestic flight?'];

/**
 * A semantic cache with `cached` questions in one bucket (by default two, so that a refused
 * candidate could be followed by another).
 */
async function setUp(
  verifier: PairVerifier,
  verifierRules?: 'all' | 'lean',
  cached: readonly string[] = YEN,
) {
  const store = new MemoryRuntimeStore();
  stores.push(store);
  const registry = new Registry();
  const log = createLogger('silent', 'test');
  const mirror = new CacheScopeMirror(store);
  await mirror.start();
  const cache = new ResponseCache({
    runtime: store,
    mirror,
    metrics: createCacheMetrics(registry),
    log,
    maxEntryBytes: 100_000,
    timeoutMs: 1_000,
  });
  const embedder: Embedder = {
    name: 'given',
    dimensions: 8,
    embed: async () => vector,
    close: async () => {},
  };
  const semantic = new SemanticCache({
    runtime: store,
    cache,
    embedder,
    valve: new DepthValve({ maxDepth: 100, minDepth: 10, budgetMs: 1_000, maxInFlight: 8 }),
    metrics: createSemanticMetrics(registry),
    log,
    guard: true,
    maxBucket: 100,
    embedTimeoutMs: 1_000,
    storeTimeoutMs: 1_000,
    verifier,
    verifyTimeoutMs: 50,
    ...(verifierRules === undefined ? {} : { verifierRules }),
  });
  const at = (hash: string) => ({ scopeId: 'test/ws', namespace: 'default', hash });
  for (const [index, question] of cached.entries()) {
    const hash = String(index).repeat(64);
    const nowMs = Date.now();
    await cache.store(at(hash), {
      v: 1,
      status: 200,
      contentType: 'application/json',
      body: '{}',
      stream: false,
      createdAtMs: nowMs,
      ttlMs: 60_000,
      swrMs: 0,
      tags: [],
      costMicros: 0,
      question,
    });
    await semantic.remember(at(hash), { question, bucket: 'bucket', threshold: 0.8 }, 60_000);
  }
  const lookup = (question: string) =>
    semantic.lookup(at('c'.repeat(64)), { question, bucket: 'bucket', threshold: 0.8 }, 'test');
  const misses = async (reason: string) =>
    (await registry.getSingleMetric('gateway_semcache_misses_total')?.get())?.values.find(
      (value) => value.labels.reason === reason,
    )?.value ?? 0;
  const verifications = async () =>
    (await registry.getSingleMetric('gateway_semcache_verify_seconds')?.get())?.values.find(
      (value) => (value as { metricName?: string }).metricName === 'gateway_semcache_verify_seconds_count',
    )?.value ?? 0;
  return { lookup, misses, verifications };
}

const answering = (score: (cached: string, asked: string) => Promise<number>) => {
  const asked: [string, string][] = [];
  const verifier: PairVerifier = {
    name: 'test verifier',
    score: (cached, question) => {
      asked.push([cached, question]);
      return score(cached, question);
    },
    close: async () => {},
  };
  return { verifier, asked };
};

describe('SemanticCache verification', () => {
  it('serves the candidate the verifier passes, after one verification with the cached question first', async () => {
    const { verifier, asked } = answering(async () => 0.995);
    const { lookup, verifications } = await setUp(verifier);
    const hit = await lookup('How many yen do 50 dollars buy?');
    expect(hit?.entry.question).toMatch(/yen/);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.[1]).toBe('How many yen do 50 dollars buy?');
    expect(await verifications()).toBe(1);
  });

  it('misses when the verifier refuses the best candidate, and verifies no other', async () => {
    const { verifier, asked } = answering(async () => 0.02);
    const { lookup, misses } = await setUp(verifier);
    expect(await lookup('How many dollars is 50 yen?')).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(await misses('verifier')).toBe(1);
  });

  it('serves the same words in the same order (case and punctuation aside) without a verification', async () => {
    const { verifier, asked } = answering(async () => 0.01);
    const { lookup, verifications } = await setUp(verifier, undefined, LUGGAGE);
    const hit = await lookup('how much luggage can I check on a domestic flight');
    expect(hit?.entry.question).toBe(LUGGAGE[0]);
    expect(asked).toHaveLength(0);
    expect(await verifications()).toBe(0);
  });

  it.each([
    ['lean', 'a synonym of SYNONYM_GROUPS', 'How much baggage can I check on a domestic flight?'],
    ['all', 'a synonym of SYNONYM_GROUPS', 'How much baggage can I check on a domestic flight?'],
    ['lean', 'typos', 'How much lugage can I chekc on a domestic flight?'],
    ['all', 'an abbreviation', 'How much luggage can I check on a domestic flight pls?'],
  ] as const)(
    'in %s mode, reads %s as the cached question writes it: served without a verification',
    async (rules, _what, question) => {
      const { verifier, asked } = answering(async () => 0.01);
      const { lookup, verifications } = await setUp(verifier, rules, [
        rules === 'all' && question.endsWith('pls?')
          ? `${LUGGAGE[0]?.slice(0, -1)} please?`
          : (LUGGAGE[0] as string),
      ]);
      expect(await lookup(question)).toBeDefined();
      expect(asked).toHaveLength(0);
      expect(await verifications()).toBe(0);
    },
  );

  it("verifies the aligned question: what remains different is the verifier's to judge", async () => {
    const { verifier, asked } = answering(async () => 0.02);
    const { lookup, misses } = await setUp(verifier, undefined, LUGGAGE);
    expect(await lookup('How much baggage can I check on an international flight?')).toBeUndefined();
    expect(asked).toEqual([
      [
        'How much luggage can I check on a domestic flight?',
        'How much luggage can I check on an international flight?',
      ],
    ]);
    expect(await misses('verifier')).toBe(1);
  });

  it('asks the verifier about the pair without the leading clause both share', async () => {
    const train =
      "We're taking the sleeper train to Inverness next month; what's included in the ticket price?";
    const { verifier, asked } = answering(async () => 0.995);
    const { lookup } = await setUp(verifier, undefined, [train]);
    const hit = await lookup(
      "We're taking the sleeper train to Inverness next month; what's included in the fare?",
    );
    expect(hit?.entry.question).toBe(train);
    // Then, as the substitution rule refused the pair (price / fare), its changed words alone.
    expect(asked).toEqual([
      ["what's included in the ticket price?", "what's included in the fare?"],
      ['ticket price', 'fare'],
      ['fare', 'ticket price'],
    ]);
  });

  it('misses, without an error, when the verifier is slower than its timeout or fails', async () => {
    const slow = await setUp(answering(() => new Promise(() => {})).verifier);
    expect(await slow.lookup('How many yen do 50 dollars buy?')).toBeUndefined();
    expect(await slow.misses('verify_failed')).toBe(1);
    const failing = await setUp(answering(async () => Promise.reject(new Error('model gone'))).verifier);
    expect(await failing.lookup('How many yen do 50 dollars buy?')).toBeUndefined();
    expect(await failing.misses('verify_failed')).toBe(1);
  });

  it.each([
    ['with every rule (all), other numbers', 'all', YEN, 'How many yen is 60 dollars?'],
    [
      'with every rule (all), a one-word synonym no list knows (the substitution rule)',
      'all',
      LUGGAGE,
      'How much luggage can I check on a local flight?',
    ],
    [
      'in lean mode, a rule it keeps (negation)',
      'lean',
      LUGGAGE,
      'How much luggage can I not check on a domestic flight?',
    ],
  ] as const)('%s: refused by the guard without a verification', async (_case, rules, cached, question) => {
    const { verifier, asked } = answering(async () => 0.99);
    const { lookup, misses } = await setUp(verifier, rules, cached);
    expect(await lookup(question)).toBeUndefined();
    expect(asked).toHaveLength(0);
    expect(await misses('guard')).toBe(1);
  });

  it('in lean mode (the default), leaves a one-word synonym no list knows to the verifier, which must reach VERIFIER_OVERRULE_SCORE', async () => {
    const confident = answering(async () => VERIFIER_OVERRULE_SCORE);
    const lean = await setUp(confident.verifier, undefined, LUGGAGE);
    const hit = await lean.lookup('How much luggage can I check on a local flight?');
    expect(hit?.entry.question).toBe('How much luggage can I check on a domestic flight?');
    expect(confident.asked).toEqual([
      [
        'How much luggage can I check on a domestic flight?',
        'How much luggage can I check on a local flight?',
      ],
      ['domestic', 'local'],
      ['local', 'domestic'],
    ]);
    // Above VERIFIER_MIN_SCORE but below either overrule's score: refused by the verifier, the
    // changed words not read.
    const unsure = answering(async () => (VERIFIER_MIN_SCORE + VERIFIER_WORDS_OVERRULE.score) / 2);
    const leanUnsure = await setUp(unsure.verifier, 'lean', LUGGAGE);
    expect(await leanUnsure.lookup('How much luggage can I check on a local flight?')).toBeUndefined();
    expect(unsure.asked).toHaveLength(1);
    expect(await leanUnsure.misses('verifier')).toBe(1);
  });

  it.each([
    ['in the order given', [0.001, 0.5]],
    ['in the other order', [0.5, 0.001]],
  ] as const)(
    'in lean mode, refuses an overruled pair whose changed words alone score under VERIFIER_CHANGED_WORDS_SCORE %s',
    async (_case, words) => {
      const printer = 'My printer says there is a paper jam but nothing is stuck inside. How do I fix this?';
      const scores = [0.999, ...words];
      const { verifier, asked } = answering(async () => scores.shift() ?? 1);
      const { lookup, misses } = await setUp(verifier, 'lean', [printer]);
      const question =
        'My printer says there is a carriage jam but nothing is stuck inside. How do I fix this?';
      expect(await lookup(question)).toBeUndefined();
      expect(asked).toEqual([
        [printer, question],
        ['paper', 'carriage'],
        ['carriage', 'paper'],
      ]);
      expect(await misses('verifier_words')).toBe(1);
      expect(await misses('verifier')).toBe(0);
    },
  );

  it('in lean mode, serves an overruled pair whose changed words alone reach VERIFIER_CHANGED_WORDS_SCORE both ways', async () => {
    const printer = 'My printer says there is a paper jam but nothing is stuck inside. How do I fix this?';
    const scores = [0.999, VERIFIER_CHANGED_WORDS_SCORE, 0.9];
    const { verifier, asked } = answering(async () => scores.shift() ?? 0);
    const { lookup } = await setUp(verifier, 'lean', [printer]);
    const question = 'My printer says there is a paper jam but nothing is jammed inside. How do I fix this?';
    expect((await lookup(question))?.entry.question).toBe(printer);
    expect(asked.slice(1)).toEqual([
      ['stuck', 'jammed'],
      ['jammed', 'stuck'],
    ]);
  });

  it.each([
    ['served when they reach VERIFIER_WORDS_OVERRULE.words both ways', [0.95, 0.92], true],
    ['refused when one order is under it', [0.95, 0.85], false],
  ] as const)(
    'in lean mode, an overruled pair scored under VERIFIER_OVERRULE_SCORE but at VERIFIER_WORDS_OVERRULE.score reads its changed words: %s',
    async (_case, words, served) => {
      const cleanser = 'My daughter has acne on her forehead; what gentle cleanser would you suggest?';
      const question = 'My daughter has acne on her forehead; what calming cleanser would you suggest?';
      const score = (VERIFIER_WORDS_OVERRULE.score + VERIFIER_OVERRULE_SCORE) / 2;
      const scores = [score, ...words];
      const { verifier, asked } = answering(async () => scores.shift() ?? 0);
      const { lookup, misses } = await setUp(verifier, 'lean', [cleanser]);
      expect((await lookup(question))?.entry.question).toBe(served ? cleanser : undefined);
      expect(asked.slice(1)).toEqual([
        ['gentle', 'calming'],
        ['calming', 'gentle'],
      ]);
      expect(await misses('verifier_words')).toBe(served ? 0 : 1);
    },
  );

  const cottage = 'We booked a cottage in Devon; can the owner refuse our booking because we have a dog?';
  const drone = 'My uncle flies a drone on holiday; is it legal to fly a drone over a beach?';
  it.each([
    // WordNet lists "refuse" / "decline" (RULE118; "deny" is grouped with "refuse" since RULE172).
    [cottage, 'refuse', 'decline', VERIFIER_WORDNET_SYNONYM_WORDS],
    // Only Moby's thesaurus lists "legal" / "permissible" (RULE86; "lawful" is grouped since RULE166).
    [drone, 'legal', 'permissible', VERIFIER_SYNONYM_WORDS],
  ] as const)(
    'in either mode, one word for its listed synonym scored under VERIFIER_MIN_SCORE reads its two words alone and needs what its list has it need: %s (%s / %s, %s)',
    async (cached, word, synonym, need) => {
      const question = cached.replace(word, synonym);
      for (const [words, served] of [
        [[0.95, need], true],
        [[need - 0.01, 0.95], false],
        // Between the two lists' needs: served only where WordNet lists the pair.
        [[0.5, 0.5], need === VERIFIER_WORDNET_SYNONYM_WORDS],
      ] as const) {
        for (const mode of ['lean', 'all'] as const) {
          const scores = [0.02, ...words];
          const { verifier, asked } = answering(async () => scores.shift() ?? 0);
          const { lookup, misses } = await setUp(verifier, mode, [cached]);
          expect((await lookup(question))?.entry.question, `${mode} ${words}`).toBe(
            served ? cached : undefined,
          );
          expect(asked.slice(1), mode).toEqual([
            [word, synonym],
            [synonym, word],
          ]);
          expect([await misses('verifier_words'), await misses('verifier')], mode).toEqual([
            served ? 0 : 1,
            0,
          ]);
        }
      }
    },
  );

  it.each([
    ['a word no list pairs', 'How do I fix a squeaky hinge?', 'How do I fix a squeaky handle?'],
    ['a phrase for a word', 'Who will pay for the repair?', 'Who will cover the repair?'],
  ])('reads no words alone where %s is changed (RULE86)', async (_case, cached, question) => {
    const { verifier, asked } = answering(async () => 0.02);
    const { lookup, misses } = await setUp(verifier, 'lean', [cached]);
    expect(await lookup(question)).toBeUndefined();
    expect(asked).toEqual([[cached, question]]);
    expect(await misses('verifier')).toBe(1);
  });

  it.each([
    ['How long does it take for a wart to go away on its own?', 'go away', 'disappear'],
    ['Should I take out the battery before storing my pontoon for the winter?', 'take out', 'remove'],
    ['Will moot court help me get over my fear of public speaking?', 'get over', 'overcome'],
  ])(
    'in lean mode, serves a phrase WordNet lists for the word it replaces however low the verifier scores the pair, reading no words alone (RULE125): %s (%s / %s)',
    async (cached, phrase, word) => {
      const question = cached.replace(phrase, word);
      for (const [from, to] of [
        [cached, question],
        [question, cached],
      ] as const) {
        const { verifier, asked } = answering(async () => 0.001);
        const { lookup, misses } = await setUp(verifier, 'lean', [from]);
        expect((await lookup(to))?.entry.question).toBe(from);
        expect(asked).toEqual([[from, to]]);
        expect(await misses('verifier')).toBe(0);
      }
    },
  );

  it('in lean mode, refuses a figure replaced by another (50 / 70 dollars) without a verification', async () => {
    const { verifier, asked } = answering(async () => 0.99);
    const { lookup, misses } = await setUp(verifier, 'lean');
    expect(await lookup('How many yen is 70 dollars?')).toBeUndefined();
    expect(asked).toHaveLength(0);
    expect(await misses('guard')).toBe(1);
  });

  it.each([
    [
      'a changed unit (identifiers)',
      "What's a Powerwall 3's capacity in kWh?",
      "What's a Powerwall 3's capacity in kW?",
    ],
    [
      'a narrower subject (narrower)',
      'What are the rules of volleyball?',
      'What are the rules of beach volleyball?',
    ],
  ])('in lean mode, refuses %s without a verification', async (_case, cached, question) => {
    const { verifier, asked } = answering(async () => 0.99);
    const { lookup, misses } = await setUp(verifier, 'lean', [cached]);
    expect(await lookup(question)).toBeUndefined();
    expect(asked).toHaveLength(0);
    expect(await misses('guard')).toBe(1);
  });

  it('in lean mode, leaves a number on one side only to the verifier, which refuses it', async () => {
    const { verifier, asked } = answering(async () => 0.02);
    const { lookup, misses } = await setUp(verifier, 'lean');
    expect(await lookup('How many yen are fifty dollars worth today?')).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(YEN).toContain(asked[0]?.[0]);
    expect(await misses('verifier')).toBe(1);
  });
});
