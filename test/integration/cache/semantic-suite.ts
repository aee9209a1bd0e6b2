/**
 * Semantic caching through HTTP with the real embedding model (no stub): paraphrases hit, other
 * questions and near misses do not, everything but the latest user message must match, the
 * eligibility rules, safe tools and their tags, purge, isolation of workspaces and namespaces.
 * Defined once and run on the memory store and on a real Redis. Each test works in a namespace of
 * its own, so that candidates of one test never meet another's.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_VERSION } from '../../../src/resources/types.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { semanticModelDir } from '../../helpers/semantic-model.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

export function describeSemanticCache(name: string, env: () => Record<string, string> | undefined): void {
  const modelDir = semanticModelDir();
  describe.runIf(env() !== undefined && modelDir !== undefined)(`semantic cache (${name})`, () => {
    let openai: FakeServer;
    let anthropic: FakeServer;
    let gateway: TestGateway;
    let counter = 0;

    beforeAll(async () => {
      openai = await startFakeOpenAi();
      anthropic = await startFakeAnthropic();
      gateway = await startTestGateway({
        ...env(),
        GATEWAY_CACHE: 'on',
        GATEWAY_SEMCACHE: 'on',
        GATEWAY_SEMCACHE_MODEL_DIR: modelDir as string,
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
        ANTHROPIC_API_KEY: 'sk-ant-platform',
        ANTHROPIC_BASE_URL: anthropic.url,
      });
      // The models (embedder and pair verifier) are loaded at the first semantic request, not at
      // start; the suite waits for both.
      const modelLoaded = async () => {
        const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
        return (
          /^gateway_semantic_model_loaded 1$/m.test(metrics) &&
          /^gateway_semantic_verifier_loaded 1$/m.test(metrics)
        );
      };
      if (await modelLoaded()) throw new Error('the semantic model was loaded before any semantic request');
      const warmUp = await postJson(
        `${gateway.url}/v1/chat/completions`,
        { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'warm up' }] },
        gateway.credentials.apiKey,
        { 'x-service-cache': 'semantic', 'x-service-cache-namespace': 'semantic-warm-up' },
      );
      expect(warmUp.status).toBe(200);
      await vi.waitFor(
        async () => {
          if (!(await modelLoaded())) throw new Error('the semantic model has not loaded');
        },
        { timeout: 60_000, interval: 50 },
      );
    });
    afterAll(async () => {
      await gateway?.stop();
      await openai?.stop();
      await anthropic?.stop();
    });

    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    /** A namespace no other test uses. */
    const fresh = () => `semantic-${slug}-${++counter}`;

    const ask = (
      namespace: string,
      question: string,
      options: { body?: Record<string, unknown>; headers?: Record<string, string>; key?: string } = {},
    ) =>
      postJson(
        `${gateway.url}/v1/chat/completions`,
        { model: 'openai/gpt-4o', messages: [{ role: 'user', content: question }], ...options.body },
        options.key ?? gateway.credentials.apiKey,
        { 'x-service-cache': 'semantic', 'x-service-cache-namespace': namespace, ...options.headers },
      );
    const calls = () => openai.requests.length;

    it('serves a paraphrase as a semantic hit with its similarity, at no cost and with no upstream call', async () => {
      const ns = fresh();
      const first = await ask(ns, 'What is the capital of France?');
      expect(first.headers.get('x-service-cache')).toBe('miss');
      const before = calls();
      const paraphrase = await ask(ns, "what's the capital city of France?");
      expect(paraphrase.headers.get('x-service-cache')).toBe('semantic-hit');
      const similarity = Number(paraphrase.headers.get('x-service-cache-similarity'));
      expect(similarity).toBeGreaterThan(0.9);
      expect(similarity).toBeLessThanOrEqual(1);
      expect(paraphrase.headers.get('x-service-cache-age')).toBeNull();
      expect(paraphrase.headers.get('x-service-balance-charged-micros')).toBe('0');
      expect(await paraphrase.text()).toBe(await first.text());
      expect(calls()).toBe(before);
      // The same question again is an exact hit.
      expect((await ask(ns, 'What is the capital of France?')).headers.get('x-service-cache')).toBe('hit');
    });

    it('serves a paraphrase on /v1/responses, a previous_response_id naming another context', async () => {
      const ns = fresh();
      const respond = (input: string, extra: Record<string, unknown> = {}) =>
        postJson(
          `${gateway.url}/v1/responses`,
          { model: 'anthropic/claude-3-5-sonnet-20241022', input, ...extra },
          gateway.credentials.apiKey,
          { 'x-service-cache': 'semantic', 'x-service-cache-namespace': ns },
        );
      const first = await respond('What is the capital of France?');
      expect(first.headers.get('x-service-cache')).toBe('miss');
      const firstText = await first.text();
      const paraphrase = await respond("what's the capital city of France?");
      expect(paraphrase.headers.get('x-service-cache')).toBe('semantic-hit');
      expect(await paraphrase.text()).toBe(firstText);
      // After a stored response, the same paraphrase is another conversation: no match.
      const id = (JSON.parse(firstText) as { id: string }).id;
      const continued = await respond("what's the capital city of France?", { previous_response_id: id });
      expect(continued.headers.get('x-service-cache')).toBe('miss');
    });

    it('misses on a different question, and on a near miss the hit guard refuses', async () => {
      const ns = fresh();
      await ask(ns, 'What is the capital of France?');
      expect((await ask(ns, 'How do I bake sourdough bread?')).headers.get('x-service-cache')).toBe('miss');
      await ask(ns, 'Convert 10 miles to kilometers');
      // 0.898 similar, above the default threshold: the numbers differ, so the numbers rule (all) or
      // the verifier (lean) refuses.
      expect((await ask(ns, 'Convert 20 miles to kilometers')).headers.get('x-service-cache')).toBe('miss');
      await ask(ns, 'Write a haiku about autumn');
      expect((await ask(ns, 'Write a haiku about spring')).headers.get('x-service-cache')).toBe('miss');
    });

    it('looks up a question with a word Object.prototype has ("constructor") like any other', async () => {
      const ns = fresh();
      expect((await ask(ns, 'What does a constructor do in Java?')).status).toBe(200);
      const again = await ask(ns, 'what does a constructor do in java');
      expect(again.status).toBe(200);
      expect(again.headers.get('x-service-cache')).toBe('semantic-hit');
      // "constructor" on the cached side only: looked up in the wording's lists too.
      expect((await ask(ns, 'What does a constuctor do in Java?')).status).toBe(200);
    });

    it('verifies the best candidate with the pair model: direction, negation, one-against-all and format miss, rewordings and synonyms hit', async () => {
      const metric = async (pattern: RegExp) =>
        Number(pattern.exec(await (await fetch(`${gateway.url}/metrics`)).text())?.[1] ?? 0);
      const verifications = () => metric(/^gateway_semcache_verify_seconds_count (\d+)$/m);
      const refusals = () => metric(/^gateway_semcache_misses_total\{reason="verifier"\} (\d+)$/m);
      const wordRefusals = () => metric(/^gateway_semcache_misses_total\{reason="verifier_words"\} (\d+)$/m);
      // Each pair in a namespace of its own: its first question is the only candidate.
      const expectEach = async (pairs: [string, string][], outcome: string) => {
        for (const [cached, asked] of pairs) {
          const ns = fresh();
          await ask(ns, cached);
          expect((await ask(ns, asked)).headers.get('x-service-cache'), `${cached} / ${asked}`).toBe(outcome);
        }
      };
      const [verifiedBefore, refusedBefore] = [await verifications(), await refusals()];
      const near: [string, string][] = [
        ['Convert 30 centimeters to inches', 'Convert 30 inches to centimeters'],
        ['Which foods contain gluten?', 'Which foods do not contain gluten?'],
        ['How do I cancel one item from my order?', 'How do I cancel my entire order?'],
        [
          'How do I convert a string to an integer in Python?',
          'How do I convert an integer to a string in Python?',
        ],
        ['How many yen is 50 dollars?', 'How many dollars is 50 yen?'],
        ['List the moons of Jupiter', 'How many moons does Jupiter have?'],
        // An opposite found only in near misses (RULE102): the verifier scored it 1.000.
        [
          'Why do my toenails turn black after hiking downhill?',
          'Why do my toenails turn black after hiking uphill?',
        ],
        // An irregular past is its verb to the opposites rule (RULE104): "lent" / "borrowed"; the
        // verifier scored them 0.998 and 0.999.
        [
          'I lent my cousin my camera and she dropped it; who should pay for the repair?',
          "I borrowed my cousin's camera and dropped it; who should pay for the repair?",
        ],
        [
          'I lent my neighbor my ladder and he broke it; who pays to replace it?',
          "I borrowed my neighbor's ladder and broke it; who pays to replace it?",
        ],
        // An opposite where the two first differ, the other's word later with no "or" or "but"
        // between (RULE127): the verifier scored these 1.000, 1.000 and 0.998, and the first's
        // changed words 0.999 alone, so the overrule served it.
        [
          'My homemade caramel sauce came out too thick for drizzling; how do I thin it out?',
          'My homemade caramel sauce came out too thin for drizzling; how do I thicken it up?',
        ],
        [
          'How do I make a new leather jacket look old and worn?',
          'How do I make an old, worn leather jacket look new?',
        ],
        ['What are the cons of solar panels?', 'What are the pros and cons of solar panels?'],
        // Two things exchanged throughout (RULE135): the verifier scored these 1.000 and 1.000.
        [
          'I have honey, but my tea cake recipe calls for sugar; how much honey should I use in place of the sugar?',
          'I have sugar, but my tea cake recipe calls for honey; how much sugar should I use in place of the honey?',
        ],
        [
          'I have shallots, but my soup recipe calls for onions; how many shallots should I use for the onions?',
          'I have onions, but my soup recipe calls for shallots; how many onions should I use for the shallots?',
        ],
        // A part of the thing named before it (RULE149): the verifier scored these 0.945 and 0.782.
        [
          'How do I troubleshoot my robot vacuum?',
          'How do I troubleshoot just the side brush on my robot vacuum?',
        ],
        ['How do I deodorize my hockey bag?', 'How do I deodorize just the shoulder strap of my hockey bag?'],
        // A plant against a part of it (RULE167): the verifier scored these 0.983 and 0.951.
        ['Is the oleander plant toxic to dogs?', 'Is the oleander flower toxic to dogs?'],
        ['What does a hibiscus plant look like?', 'What does a hibiscus flower look like?'],
        // Who hunts whom, the thing asked about named and the subject two words long (RULE159): the
        // verifier scored these 0.999 and 0.999.
        ['Which birds do barn owls hunt?', 'Which birds hunt barn owls?'],
        ['Which animals do red foxes hunt at night?', 'Which animals hunt red foxes at night?'],
        // A phrase put at the end of the same question (RULE163): the verifier scored these 0.991
        // and 0.996.
        ['How do I grow thyme?', 'How do I grow thyme from seed?'],
        ["What's the history of the croissant?", "What's the history of the croissant in France?"],
        // Who preys on whom, the preposition left at the end (RULE161): the verifier scored these
        // 0.998 and 0.997.
        ['Which birds prey on garter snakes?', 'Which birds do garter snakes prey on?'],
        ['What fish feed on mayflies?', 'What fish do mayflies feed on?'],
        // A pick two or three words from its noun under "what is the" (RULE160): the verifier scored
        // these 1.000 and 0.995.
        ["What's the best-selling Lego set?", 'What are the best-selling Lego sets?'],
        ['What is the cheapest electric pickup truck?', 'What are the cheapest electric pickup trucks?'],
        // One thing against a collection of them (RULE157): the verifier scored this 0.992.
        ['How do I clean a brass doorknob?', 'How do I clean my collection of brass doorknobs?'],
        // A word against itself with a negating prefix (RULE156): the verifier scored these 0.995
        // and 0.992, the substitution rule's refusal overruled.
        [
          'Which types of paint are suitable for a bathroom ceiling?',
          'Which types of paint are unsuitable for a bathroom ceiling?',
        ],
        [
          'Which houseplants are suitable for a north-facing window?',
          'Which houseplants are unsuitable for a north-facing window?',
        ],
        // One named thing against several, "the" before both (RULE153): the verifier scored these
        // 0.999 and 0.997.
        ['Where should I hang the mirror in my hallway?', 'Where should I hang the mirrors in my hallway?'],
        [
          'How high should I mount the towel rail in my bathroom?',
          'How high should I mount the towel rails in my bathroom?',
        ],
        // A member and its kind exchanged after "every" (RULE148): the verifier scored these 0.992
        // and 0.997.
        ['Is every sloop a sailboat?', 'Is every sailboat a sloop?'],
        ['Is every rhombus a square?', 'Is every square a rhombus?'],
        // The measured thing exchanged (RULE133): the verifier scored these 0.998 and 0.999.
        [
          'How much cooked pasta does one pound of dry pasta make?',
          'How much dry pasta makes one pound of cooked pasta?',
        ],
        [
          'My recipe calls for 2 cups of buttermilk but I only have yogurt; how much yogurt should I use?',
          'My recipe calls for 2 cups of yogurt but I only have buttermilk; how much buttermilk should I use?',
        ],
        // A century written with "s" for another (RULE131), or as an ordinal (RULE132): the verifier
        // scored these 0.914 and 0.961.
        ['Who controlled the saffron trade in the 1500s?', 'Who controlled the saffron trade in the 1600s?'],
        [
          'Who controlled the saffron trade in the 16th century?',
          'Who controlled the saffron trade in the 17th century?',
        ],
        // One against none of them (RULE126): the verifier scored these 0.996 and 1.000, and the
        // third 0.993 with its changed words 0.999 alone, so the overrule served it.
        [
          'I canned six pints of salsa last night and one jar did not seal; what should I do with it?',
          'I canned six pints of salsa last night and none of the jars sealed; what should I do with them?',
        ],
        [
          'I made a batch of strawberry freezer jam and one container did not set; can I fix it?',
          'I made a batch of strawberry freezer jam and none of the containers set; can I fix them?',
        ],
        [
          'I started a tray of pepper seeds three weeks ago and one has not sprouted; should I wait longer?',
          'I started a tray of pepper seeds three weeks ago and none have sprouted; should I wait longer?',
        ],
        // The speaker's role exchanged with a party the question names (RULE124): the verifier
        // scored these 0.998 and 0.982.
        [
          "I'm a dentist co-treating a patient with an orthodontist; what X-rays should I send to the orthodontist?",
          "I'm an orthodontist co-treating a patient; what X-rays should I send to the dentist?",
        ],
        [
          "I'm a landlord and my tenant wants to sublet a room; can I refuse?",
          "I'm a tenant and my landlord wants to rent out a room in my flat; can I refuse?",
        ],
        // Two runs trade places with another article in them (RULE123): the verifier scored these
        // 0.955 and 0.871.
        ["Should a subletter pay the tenant's deposit?", "Should the tenant pay the subletter's deposit?"],
        [
          'Can a trustee remove the beneficiary of a trust?',
          'Can the beneficiary remove a trustee of a trust?',
        ],
        // A word and its opposite where the two first differ, the rest rebuilt (RULE122): the
        // verifier scored these 0.976 and 0.998.
        ['How do I thicken a runny custard?', 'How do I thin out a custard that is too thick?'],
        [
          'How do I engage the parking brake on a Ford F-150?',
          'How do I disengage the parking brake on a Ford F-150 after it got stuck?',
        ],
        // Another thing done to the thing so done (RULE121): the verifier scored these 0.994 and 0.990.
        ['How do I pause my Netflix download?', 'How do I resume my paused Netflix download?'],
        ['How do I archive a Slack channel?', 'How do I restore an archived Slack channel?'],
        // Two runs that open alike trade places (RULE117): the verifier scored these 0.996 and 0.992.
        ['How do cleaner fish help fish?', 'How do fish help cleaner fish?'],
        ['Can a guide dog become a pet dog?', 'Can a pet dog become a guide dog?'],
        // A noun after the same possessive in the other number (RULE115): the verifier scored it 0.997.
        ['How do I introduce a new puppy to my cat?', 'How do I introduce a new puppy to my cats?'],
        // An opposite beside one other change (RULE114): the verifier scored it 0.999.
        [
          'My homemade hummus came out too runny; how do I thicken it?',
          'My homemade hummus came out too stiff; how do I thin it?',
        ],
        // "what are some" picks too (RULE113): the verifier scored it 0.999.
        ["What's the best brand of miso paste?", 'What are some good brands of miso paste?'],
        // "what is the" picks one (RULE112): the verifier scored these 0.943 and 0.997.
        ['What is the dipping sauce for gyoza called?', 'What are the dipping sauces for gyoza called?'],
        ['What is the active compound in horseradish?', 'What are the active compounds in horseradish?'],
        // One against all, a pronoun agreeing after it (RULE107): the verifier scored it 1.000.
        [
          'My jacket has a two-way zipper and one of the pulls broke off; how do I replace it?',
          'My jacket has a two-way zipper and both of the pulls broke off; how do I replace them?',
        ],
        // The one who acts and the owner exchanged (RULE106): the verifier scored them 0.998 and 0.991.
        [
          'My roommate borrowed my bike and bent the wheel; who should pay for it?',
          "I borrowed my roommate's bike and bent the wheel; who should pay for it?",
        ],
        [
          'My brother borrowed my laptop and cracked the screen; who should pay for the repair?',
          "I borrowed my brother's laptop and cracked the screen; who should pay for the repair?",
        ],
        // A word of the opposites list a synonym folds is read by its stem too (RULE105): "received" is
        // "receive" against "sent"; the verifier scored them 0.997 and 0.996.
        ['Who sent the first text message?', 'Who received the first text message?'],
        [
          'Why is my laptop not receiving emails from Gmail users?',
          'Why is my laptop not sending emails to Gmail users?',
        ],
        // A number word before a unit is a figure, the unit changed (RULE96): the verifier scored it 1.000.
        [
          'My washing machine stops mid-cycle for about five minutes every time I run it. Is the drain pump failing or is this normal?',
          'My washing machine stops mid-cycle for about five hours every time I run it. Is the drain pump failing or is this normal?',
        ],
        // A possessive "'s" is not the other side's "is" (RULE100): aligned as "rooms in my brother is
        // house", the verifier scored it 0.997; as written, 0.451.
        [
          'My brother is renting out rooms in my house; how should we split the rent money?',
          "I am renting out rooms in my brother's house; how should we split the rent money?",
        ],
        // An acronym spelt out never takes the word after it (RULE99): "MB" is not "Mbps but", so
        // the units differ; the verifier scored it 1.000.
        [
          'Our office internet is 100 Mbps but big downloads crawl along. Is that speed normal for a team of ten people?',
          'Our office internet is 100 MB/s but big downloads crawl along. Is that speed normal for a team of ten people?',
        ],
        // A unit the changed-unit rule knows since RULE98: the verifier scored it 1.000 and the two
        // words alone 0.56, so in lean mode the overrule would serve it.
        [
          'The bridge on our farm road is posted for 10 tons. Can I drive my loaded grain truck over it without risking damage?',
          'The bridge on our farm road is posted for 10 tonnes. Can I drive my loaded grain truck over it without risking damage?',
        ],
        // "a" and "an" before a unit are one of it (RULE97): the verifier scored it 1.000.
        [
          'My puppy whines for about an hour every night in her crate. Is that normal, or should I change something?',
          'My puppy whines for about a minute every night in her crate. Is that normal, or should I change something?',
        ],
        // A part put in where the other question has an article (RULE94): the verifier scored it 0.997.
        ['How do I sharpen a lawn mower?', 'How do I sharpen lawn mower blades?'],
        // "with" after a verb that does something with one thing to another (RULE92): the
        // verifier scored it 0.983.
        ['Can I pull a camper with a pickup truck?', 'Can I pull a pickup truck with a camper?'],
        // One picked against several with the superlative let go, and past a name of two words
        // (RULE91): the verifier scored them 0.998 and 0.996.
        [
          'Which Vermont ski area has the cheapest lift ticket?',
          'Which Vermont ski areas have cheap lift tickets?',
        ],
        ['Which Denver food truck sells vegan tacos?', 'Which Denver food trucks sell vegan tacos?'],
        // A verb against its antonym with a particle (RULE90): the verifier scored it 0.995.
        [
          "My in-laws arrive for dinner in an hour; what's the fastest way to thicken my gravy?",
          "My in-laws arrive for dinner in an hour; what's the fastest way to thin out my gravy?",
        ],
        // "replace A with B" against "replace B with A" (RULE89): the swapped-roles rule took "with"
        // for a word that takes no sides; the verifier scored it 0.998.
        [
          'Is it a good idea to replace carpet with hardwood in a rental?',
          'Is it a good idea to replace hardwood with carpet in a rental?',
        ],
        // Two parts exchanged around an "and" that joins two clauses (RULE87): read as the cached
        // words before, and served without a verification (the verifier scored it 0.999).
        [
          "I'm the buyer and the seller wants to back out after the home inspection; what are my options?",
          "I'm the seller and the buyer wants to back out after the home inspection; what are my options?",
        ],
        // Scored 0.80 by the verifier: the changed-figure rule (lean) or the numbers rule (all) refuses it.
        ['Who was the British Prime Minister in 1940?', 'Who was the British Prime Minister in 1938?'],
        // A minus sign (RULE66): the verifier scored these 0.965 and 0.998; the changed-figure rule
        // (lean) or the numbers rule (all) refuses them.
        [
          'Is it safe to run outside when the wind chill is 20 degrees Fahrenheit?',
          'Is it safe to run outside when the wind chill is -20 degrees Fahrenheit?',
        ],
        [
          'My chest freezer is set to 18 degrees Celsius; is that cold enough for meat?',
          'My chest freezer is set to -18 degrees Celsius; is that cold enough for meat?',
        ],
        // A part WordNet names, right after its thing (RULE68): the verifier scored these 0.998 and
        // 0.949; the narrowing rule refuses them.
        ['How do I clean an oil lamp?', 'How do I clean an oil lamp wick?'],
        ['How do I repair a cracked violin?', 'How do I repair a cracked violin soundboard?'],
        // An opposite a helper wrote blind (hit-guard-words.ts).
        ['How do I see which invoices are paid?', 'How do I see which invoices are unpaid?'],
        // The same figure, another unit (guard/changed-unit.ts).
        [
          "I'm changing trains at Zurich HB and have 8 minutes between arrival and departure; what can I do in that time?",
          "I'm changing trains at Zurich HB and have 8 hours between arrival and departure; what can I do in that time?",
        ],
        // Scored 0.95: a number in words, read by the same rules.
        [
          'How much will a $1,500 laptop be worth after one year?',
          'How much will a $1,500 laptop be worth after five years?',
        ],
        [
          'I commute 20 km a day on a touring bike; how often should I replace the brake pads?',
          'I commute 20 km a day on a touring bike; how often should I replace the brake cables?',
        ],
        // Scored 0.98 and 0.996: a negation added beside one both have ("nothing", "doesn't use
        // them"), counted by the negation rule (RULE55).
        [
          'My old amp was serviced last week; should I worry if it buzzes when nothing is plugged in?',
          "My old amp was serviced last week; should I worry if it doesn't buzz when nothing is plugged in?",
        ],
        [
          "I gave my sister a gym membership she barely used this year; which perks expire if she doesn't use them?",
          "I gave my sister a gym membership she barely used this year; which perks don't expire if she doesn't use them?",
        ],
      ];
      await expectEach(near, 'miss');
      const synonyms: [string, string][] = [
        ['How do I reset my router?', 'Could you tell me how to reset my router?'],
        ['How many moons does Jupiter have?', "what's the number of moons orbiting jupiter"],
        // Whole clauses moved: a reorder, not swapped roles (guard/swapped-roles.ts).
        [
          'My car was stolen from my driveway last night; does my insurance pay for a rental while they investigate?',
          'While they investigate, does my insurance pay for a rental? My car was stolen from my driveway last night.',
        ],
        // A polite framing is neither a narrower request nor a negation (hit-guard-words.ts, PHRASES).
        [
          'Suggest some low-maintenance plants for a balcony.',
          'Would you mind suggesting some low-maintenance plants for a balcony?',
        ],
        [
          "I'm homeschooling my 13-year-old in Georgia starting this fall; outline what the state requires from parents like me.",
          "I'm homeschooling my 13-year-old in Georgia starting this fall; if it's not too much trouble, could you outline what the state requires from parents like me?",
        ],
        // Abbreviations the alignment reads as the cached question writes them (wording.ts): "w/",
        // and "b4", a figure joined to letters that its words once split in two.
        [
          "We're closing on a house with a septic tank next week; what should I ask the inspector before closing?",
          "We're closing on a house w/ a septic tank next week; what should I ask the inspector b4 closing?",
        ],
        // "Help me figure out" is a polite framing too (hit-guard-words.ts, PHRASES).
        [
          'My son just started cello lessons and the strings keep going out of tune every day; what could be causing that?',
          'My son just started cello lessons and the strings keep going out of tune every day. Would you mind helping me figure out what could be causing that?',
        ],
        // "no" before a question word is "know" mistyped (wording.ts, hit-guard-words.ts), not a negation.
        ['How do I know if my parakeet is sick?', 'How do I no if my parakeet is sick?'],
        // Alternatives offered in another order: a reorder, not swapped roles (guard/swapped-roles.ts).
        [
          "I'm making ice pops for my kid's party this weekend; should I use Greek yogurt or regular?",
          "I'm making ice pops for my kid's party this weekend; should I use regular yogurt or Greek?",
        ],
        // Two things exchanged around a relation that holds both ways: no roles swapped (RULE93);
        // the verifier scored them 0.963 and 0.997.
        ['Are sweet potatoes the same as yams?', 'Are yams the same as sweet potatoes?'],
        ['How do I tell a hornet from a wasp?', 'How do I tell a wasp from a hornet?'],
        // A subordinate clause put at the other end: a reorder, not swapped roles (RULE54).
        ['Before repotting my orchid, should I water it?', 'Should I water my orchid before repotting it?'],
        [
          'After installing a new dishwasher, how long should I wait to run it?',
          'How long should I wait to run a new dishwasher after installing it?',
        ],
        // A verb that says "not" is the negation it says (RULE101): the negation rule refused these,
        // one side counted as negated; the verifier scores them 1.000 and 0.999.
        [
          "I can't make it to my cousin's wedding; is it rude to send a gift by mail?",
          "I'm unable to make it to my cousin's wedding; is it rude to send a gift by mail?",
        ],
        [
          'My daughter did not pass her driving test; when can she retake it?',
          'My daughter failed her driving test; when can she retake it?',
        ],
        // "keep it from" and "quit" say "stop" (RULE103): the opposites rule refused these, an undoing
        // verb added; the verifier scores them 1.000 and 0.94.
        ['How do I keep my glasses from fogging up?', 'My glasses keep fogging up; how do I stop that?'],
        [
          'How do I stop my cat from scratching the sofa?',
          'How do I get my cat to quit scratching the sofa?',
        ],
        // "In" before a month or a season says when, not into what (RULE119): the direction rule
        // refused these; the verifier scored them 1.000.
        [
          'We are sailing to Iceland in June; will we see the midnight sun?',
          'Will we see the midnight sun on our June sailing trip to Iceland?',
        ],
        [
          'We are driving to Banff in the winter; do we need snow tires?',
          'Do we need snow tires for our winter drive to Banff?',
        ],
        // A phrase of time and place put first is no swap of roles (RULE116): the swapped-roles rule
        // refused it; the verifier scored it 0.999.
        [
          'I twisted my ankle on a hike in Utah last weekend; how long should I rest it?',
          'Last weekend on a hike in Utah I twisted my ankle; how long should I rest it?',
        ],
        // A clipped word read as the words it stands for (RULE111): as written the substitution
        // rule refused it and the verifier scored it 0.450; aligned, it is the cached words.
        [
          'How many carbs are in a cup of cooked okra?',
          'How many carbohydrates are in a cup of cooked okra?',
        ],
        // A typo in a possessive's word is mended (RULE110): the verifier scored the pairs as
        // written 0.001 and 0.002; aligned, the first is the cached words, the second scored 0.998.
        [
          "I just inherited my grandpa's pool table; how do I level it?",
          "I just inherited my granpa's pool table; how do I level it?",
        ],
        [
          "I am building a kaleidoscope for my niece's birthday; where can I buy a lens?",
          "I am bulding a kaleidoscope for my neice's birthday; where can I buy a lens?",
        ],
        // A height or degrees written two ways are one (RULE109): the narrower rule read "foot",
        // "inches" or "deg" as a word added; the verifier scored the aligned pairs 0.997 and 0.995,
        // the third is the cached words once aligned.
        ["I'm 6 foot 4; what hammock length should I buy?", "I'm 6'4; what hammock length should I buy?"],
        ['Which sleeping pad fits someone 5 ft 9?', 'Which sleeping pad fits someone 5 feet 9 inches tall?'],
        [
          'How long do I bake meringues at 200 degrees Fahrenheit?',
          'How long do I bake meringues at 200 deg F?',
        ],
        // An adjective's infinitive goes nowhere (RULE108): the direction rule refused these as a way
        // from the boots to walking and back; the verifier scored them 0.998 and 0.995.
        ['Are hiking boots comfortable to walk in?', 'Is walking in hiking boots comfortable?'],
        ['Are inflatable kayaks safe to paddle in?', 'Is paddling in an inflatable kayak safe?'],
        // "can't stand" says "hate", no negation (RULE105); the verifier scored it 0.953.
        [
          'My son hates vegetables; how can I get him to eat more?',
          "My son can't stand vegetables; how can I get him to eat more?",
        ],
        // An undoing verb against a negation: no opposite (RULE73); the verifier scored it 0.995.
        [
          'How do I stop swallowing water while swimming?',
          "What can I do so I don't swallow water when I swim?",
        ],
        // "Percent" after a number the other question writes with "%": no narrower subject (RULE74).
        [
          'My newborn lost 7% of her birth weight in three days; is that normal?',
          'My newborn lost 7 percent of her birth weight in three days; is that normal?',
        ],
        // A symbol for the word the other question writes after a shared one: no part named (RULE69).
        [
          "What's the best humidity percentage for a cigar humidor?",
          "What's the best humidity % for a cigar humidor?",
        ],
        // A verb's negative contraction with its "n" dropped is the negation (RULE136): the negation
        // rule refused it before, reading no negation in "did't"; the verifier scores it 0.999.
        ["How do I fix fudge that didn't set?", "How do I fix fudge that did't set?"],
        // A relation both ways between two things that share their first words (RULE147): the
        // swapped-roles rule refused it before; the verifier scores it 0.999.
        ['How do hiking boots differ from hiking shoes?', 'How do hiking shoes differ from hiking boots?'],
      ];
      await expectEach(synonyms, 'semantic-hit');
      // A synonym after a shared context clause: the verifier reads what follows the clause, and in
      // lean mode serves it; with every rule, the substitution rule refuses it first.
      const afterContext: [string, string][] = [
        [
          "We're taking the sleeper train to Inverness next month; what's included in the ticket price?",
          "We're taking the sleeper train to Inverness next month; what's included in the fare?",
        ],
        // One word changed in a long question, its changed words read alone passing both ways.
        [
          'Should I turn off automatic updates on my Android phone to save mobile data, or is that a security risk?',
          'Should I turn off auto updates on my Android phone to save mobile data, or is that a security risk?',
        ],
        [
          "Why won't my AirPods connect to my MacBook even though they work perfectly with my iPhone?",
          "Why won't my AirPods connect to my MacBook even though they work fine with my iPhone?",
        ],
        // A verb changed before the particle both share, read with it (RULE95): "goes" / "pairs"
        // alone 0.004, "goes well" / "pairs well" 0.803, the pair 0.997 (the model before the R to
        // LU sets; the shipped one reads the words alone 0.053 and the pair 0.991).
        ['What wine goes well with salmon?', 'What wine pairs well with salmon?'],
      ];
      const lean = env()?.GATEWAY_SEMCACHE_VERIFIER_RULES !== 'all';
      await expectEach(afterContext, lean ? 'semantic-hit' : 'miss');
      // "If it's no trouble" is a polite framing, not a negation; with every rule, the substitution
      // rule then refuses the rebuilt question.
      const politeRebuilt: [string, string][] = [
        [
          "I'm building a vertical garden on a south-facing brick wall in Texas; what plants can handle the reflected heat?",
          "I'm building a vertical garden on a south-facing brick wall in Texas. If it's no trouble, could you suggest plants that can handle the reflected heat?",
        ],
      ];
      await expectEach(politeRebuilt, lean ? 'semantic-hit' : 'miss');
      // One noun changed in a long question. The verifier refuses the first itself (0.26 whole; the
      // model before the R to LU sets scored it 1.0). The second scores 0.997 whole, so in lean mode
      // the substitution rule's refusal would be overruled; the changed words read alone refuse it.
      await expectEach(
        [
          [
            'My golden retriever ate a few grapes off the kitchen floor about an hour ago, does he need to see a vet?',
            'My golden retriever ate a few blueberries off the kitchen floor about an hour ago, does he need to see a vet?',
          ],
        ],
        'miss',
      );
      const wordsRefusedBefore = await wordRefusals();
      const oneNoun: [string, string][] = [
        [
          'While breastfeeding, is it safe for me to take pseudoephedrine for a blocked nose and sinus pressure?',
          'While pregnant, is it safe for me to take pseudoephedrine for a blocked nose and sinus pressure?',
        ],
      ];
      await expectEach(oneNoun, 'miss');
      expect(await wordRefusals()).toBe(wordsRefusedBefore + (lean ? oneNoun.length : 0));
      // A phrase no list knows for the words it replaces: the verifier scores the pair 0.897 whole,
      // under the overrule score, and the changed words alone ("in the wild" / "naturally") 0.929
      // and more both ways, so in lean mode the overrule's second way serves it
      // (VERIFIER_WORDS_OVERRULE); with every rule, the substitution rule refuses it. (This case's
      // pair before, "What's the cheapest way to build a raised bed?" / "What's the most low-cost
      // way ...?", the shipped verifier scores 0.022 whole, and loses.)
      const wordSynonyms: [string, string][] = [
        ['Where do larch trees grow in the wild?', 'Where do larch trees grow naturally?'],
      ];
      await expectEach(wordSynonyms, lean ? 'semantic-hit' : 'miss');
      expect(await wordRefusals()).toBe(wordsRefusedBefore + (lean ? oneNoun.length : 0));
      // A synonym in another sense of the word (WordNet's senses, guard/wordnet.ts): the
      // substitution rule leaves it to the verifier in either mode, which serves it (0.99 and more);
      // a sense a question rarely means ("minute" / "second" as a moment) the verifier refuses
      // (0.000; after "per", "a" or a figure the changed-unit rule refuses it first, RULE97).
      const [verifiedAtSenses, refusedAtSenses] = [await verifications(), await refusals()];
      const senseSynonyms: [string, string][] = [
        ['Why are my new hiking boots so stiff?', 'Why are my new hiking boots so rigid?'],
        ['What colors attract hummingbirds to a feeder?', 'What colors draw hummingbirds to a feeder?'],
      ];
      await expectEach(senseSynonyms, 'semantic-hit');
      const senseNearMisses: [string, string][] = [
        [
          'How many times does a hummingbird flap its wings each minute?',
          'How many times does a hummingbird flap its wings each second?',
        ],
      ];
      await expectEach(senseNearMisses, 'miss');
      expect([await verifications(), await refusals()]).toEqual([
        verifiedAtSenses + senseSynonyms.length + senseNearMisses.length,
        refusedAtSenses + senseNearMisses.length,
      ]);
      expect(await wordRefusals()).toBe(wordsRefusedBefore + (lean ? oneNoun.length : 0));
      // A synonym only the Moby thesaurus lists (guard/thesaurus.ts, RULE59): the substitution rule
      // leaves it to the verifier in either mode, which serves it (0.97 and more). Before, lean mode
      // served it only through the overrule, which refused it: the changed words read alone apart
      // ("manager" / "boss" 0.016).
      const verifiedAtThesaurus = await verifications();
      const thesaurusSynonyms: [string, string][] = [
        [
          'What is the fee for replacing a lost passport?',
          'What is the charge for replacing a lost passport?',
        ],
        [
          'My printer is jammed again; how do I ask my manager for a new one?',
          'My printer is jammed again; how do I ask my boss for a new one?',
        ],
        ['What gear do I need for my first ski trip?', 'What equipment do I need for my first ski trip?'],
        // A pair with one word outside the verifier's vocabulary (RULE61).
        ['Is brown rice a healthy side dish?', 'Is brown rice a nutritious side dish?'],
        // After a shared context clause too.
        [
          'I commute 20 km a day on a touring bike; how often should I replace the brake pads?',
          'I commute 20 km a day on a touring bike; how often should I change the brake pads?',
        ],
      ];
      await expectEach(thesaurusSynonyms, 'semantic-hit');
      expect(await verifications()).toBe(verifiedAtThesaurus + thesaurusSynonyms.length);
      // A WordNet antonym as the only word changed (guard/opposites.ts, RULE60): the verifier scored
      // these 1.0; the opposites rule refuses them before any verification, in either mode.
      const verifiedAtAntonyms = await verifications();
      const antonyms: [string, string][] = [
        [
          'At what age do children in Finland usually start formal school, and how does that compare with England?',
          'At what age do children in Finland usually finish formal school, and how does that compare with England?',
        ],
        [
          'Was Napoleon actually tall, or is that just a myth?',
          'Was Napoleon actually short, or is that just a myth?',
        ],
      ];
      await expectEach(antonyms, 'miss');
      expect(await verifications()).toBe(verifiedAtAntonyms);
      expect(await wordRefusals()).toBe(wordsRefusedBefore + (lean ? oneNoun.length : 0));
      // One word for its listed synonym (WordNet in some sense, or Moby) that the verifier reads as
      // a changed word in the question, the two words read alone as the same (RULE86): the
      // verifier scored these 0.022 and 0.085 whole, the words alone 0.977 and 0.971, so either
      // mode serves them. A listed pair whose words read apart alone ("crown" / "cap", WordNet's
      // "top of a structure" sense; 0.012) stays a miss, counted as the changed words' refusal.
      const wordsRefusedAtListed = await wordRefusals();
      const listedSynonyms: [string, string][] = [
        [
          'We booked a cottage in Devon for a week in August; can the owner refuse our booking because we have a dog?',
          'We booked a cottage in Devon for a week in August; can the owner deny our booking because we have a dog?',
        ],
        [
          'I have a 2015 Subaru Outback with 120,000 miles; should I switch to synthetic oil now?',
          'I have a 2015 Subaru Outback with 120,000 miles; should I change to synthetic oil now?',
        ],
      ];
      await expectEach(listedSynonyms, 'semantic-hit');
      const listedApart: [string, string][] = [
        [
          'What does a chimney crown do on a brick chimney?',
          'What does a chimney cap do on a brick chimney?',
        ],
      ];
      await expectEach(listedApart, 'miss');
      expect(await wordRefusals()).toBe(wordsRefusedAtListed + listedApart.length);
      // A verb that undoes is no synonym of one that does not (RULE120): Moby lists "correct" /
      // "cancel" and the verifier reads the two alone at 0.921, but they are not read alone; the
      // pair (0.004 whole) is the verifier's own miss.
      const wordsRefusedAtUndoing = await wordRefusals();
      const undoing: [string, string][] = [
        [
          'I filed my taxes online last week and spotted a typo; how do I correct the return?',
          'I filed my taxes online last week and spotted a typo; how do I cancel the return?',
        ],
        [
          'I listed my old couch on Facebook Marketplace yesterday; how do I edit the listing?',
          'I listed my old couch on Facebook Marketplace yesterday; how do I delete the listing?',
        ],
      ];
      await expectEach(undoing, 'miss');
      expect(await wordRefusals()).toBe(wordsRefusedAtUndoing);
      // A synonym WordNet lists needs less of its words read alone than one only Moby's thesaurus
      // lists (RULE118): the model before the R to LU sets scored these 0.576 and 0.157 whole, the
      // words alone 0.534 and 0.392, under RULE86's 0.8, over WordNet's 0.2. "legal" / "fair",
      // Moby's alone, reads 0.01 alone (the pair 0.004), and stays a miss. ("legal" /
      // "permissible", this case's pair before, the verifier now scores 0.998 whole and serves.)
      const wordnetListed: [string, string][] = [
        [
          'My landlord wants to inspect the flat on Sunday; can I refuse the visit?',
          'My landlord wants to inspect the flat on Sunday; can I decline the visit?',
        ],
        [
          'I get carsick on mountain roads; is the drive from Denver to Aspen very bumpy?',
          'I get carsick on mountain roads; is the drive from Denver to Aspen very rough?',
        ],
      ];
      await expectEach(wordnetListed, 'semantic-hit');
      const mobyListed: [string, string][] = [
        ['Is it legal for an HOA to fine me over my lawn?', 'Is it fair for an HOA to fine me over my lawn?'],
      ];
      await expectEach(mobyListed, 'miss');
      expect(await wordRefusals()).toBe(wordsRefusedAtListed + listedApart.length + mobyListed.length);
      // A phrase WordNet lists for the word it replaces (RULE125) is served whatever the verifier
      // reads: it scored these 0.641, 0.983, 0.997 and 0.927 whole, the changed words alone 0.484,
      // 0.155, 0.009 and 0.012, and none was served before; in lean mode, where the substitution
      // rule is left to the verifier (with every rule, it refuses them first). "goes down" /
      // "goes away", which WordNet does not list together (the swelling lessens or is gone;
      // 0.008), stays a miss in either mode, no words read alone.
      const wordsRefusedAtPhrases = await wordRefusals();
      const listedPhrases: [string, string][] = [
        [
          'My daughter had a plantar wart frozen off last month; how long until the blister goes away?',
          'My daughter had a plantar wart frozen off last month; how long until the blister disappears?',
        ],
        [
          'I got two offers from law firms in Chicago; how do I turn down the one I do not want without burning bridges?',
          'I got two offers from law firms in Chicago; how do I reject the one I do not want without burning bridges?',
        ],
        [
          'I run a small bakery; how long before cream cheese frosting goes bad at room temperature?',
          'I run a small bakery; how long before cream cheese frosting spoils at room temperature?',
        ],
        [
          'My son is 7 and scared of the dark; how can I help him get over it?',
          'My son is 7 and scared of the dark; how can I help him overcome it?',
        ],
      ];
      await expectEach(listedPhrases, lean ? 'semantic-hit' : 'miss');
      await expectEach(
        [
          [
            'I sprained my ankle playing soccer on Saturday; how long until the swelling goes down?',
            'I sprained my ankle playing soccer on Saturday; how long until the swelling goes away?',
          ],
        ],
        'miss',
      );
      expect(await wordRefusals()).toBe(wordsRefusedAtPhrases);
      // A synonym of SYNONYM_GROUPS, EVERYDAY_GROUPS or WORDNET_GROUPS, a typo, an acronym spelt
      // out, a state's code, a price's currency sign or name, a short form, a unit after a figure or
      // "how many", "x" for "by", a name's typo, "how much is", "mic": the question is read as the
      // cached one writes it (wording.ts), in either mode, and the same wording needs no
      // verification.
      const aligned: [string, string][] = [
        [
          'How much luggage can I check on a domestic flight?',
          'How much baggage can I check on a domestic flight?',
        ],
        ['Where should I go on vacation in March?', 'Where should I go on holiday in March?'],
        ['Is a used BMW with 100,000 miles worth it?', 'Is a used BMW with 100k miles worth it?'],
        ['How do I reset my router to factory settings?', 'how do i reset my router to factory setings'],
        [
          'How much does a registered nurse earn in the United Kingdom?',
          'How much does a registered nurse earn in the UK?',
        ],
        ['What is the sales tax on a used car in California?', 'What is the sales tax on a used car in CA?'],
        ['What is the best blender under $100?', 'What is the best blender under 100 dollars?'],
        [
          "I'm moving to Washington, DC next month for an internship; should I get a SmarTrip card?",
          "I'm moving to DC next month for an internship; should I get a SmarTrip card?",
        ],
        // Everyday short forms on the abbreviation list (ABBREVIATIONS in wording-lists.ts).
        [
          "I'm a nurse moving to Texas next month; how long does it take to transfer my nursing license and my BLS certificate?",
          "I'm a nurse moving to Texas next month; how long does it take to transfer my nursing license and my BLS cert?",
        ],
        // A unit written short right after a figure (FIGURE_UNITS in wording-lists.ts).
        [
          "I'm wiring a workshop in my detached garage; what size breaker does a 50 amp welder outlet need?",
          "I'm wiring a workshop in my detached garage; what size breaker does a 50A welder outlet need?",
        ],
        // Everyday words and phrases of the second hand-written list (EVERYDAY_GROUPS, RULE128): the
        // default missed these before, the verifier scoring them 0.232, 0.019 and 0.120.
        [
          'How do I get the soot off the glass of my wood stove?',
          'How do I get the soot off the glass of my wood burner?',
        ],
        ['Can I use caster sugar in shortbread?', 'Can I use superfine sugar in shortbread?'],
        [
          'My son has a canker sore on his tongue; what can I put on it?',
          'My son has a mouth ulcer on his tongue; what can I put on it?',
        ],
        // Verbs, adjectives and adverbs of the same list (RULE129): the default missed these before,
        // the verifier scoring them 0.997 (its changed words alone 0.012), 0.599 and 0.000.
        [
          'My husband fell ill on our cruise; does travel insurance cover it?',
          'My husband became ill on our cruise; does travel insurance cover it?',
        ],
        [
          'My neighbour burgled my shed; should I press charges?',
          'My neighbour burgled my shed; should I file charges?',
        ],
        [
          'Should I water my tomatoes every other day in July?',
          'Should I water my tomatoes every two days in July?',
        ],
        // Word pairs the read sets lost, judged against the same brief (RULE130): the default missed
        // these before, the verifier scoring them 0.987 (its changed words alone 0.002), 0.001 and
        // 0.007.
        [
          'Is it safe to stay in a tent during a lightning storm?',
          'Is it safe to stay in a tent during a thunderstorm?',
        ],
        [
          'How do I keep small children busy on a long flight?',
          'How do I keep young kids busy on a long flight?',
        ],
        [
          'How often should I water my houseplants in winter?',
          'How often should I water my indoor plants in winter?',
        ],
        // A homophone written for the other (CONFUSED_WORDS, RULE134): the default missed the first
        // two before (the verifier reading "hoarse" / "horse" alone 0.004, "peel" / "peal" 0.004),
        // and the third was under the verifier's score (0.038).
        ['Why does my parrot sound hoarse after a bath?', 'Why does my parrot sound horse after a bath?'],
        ['Should I peel the pears before poaching them?', 'Should I peal the pears before poaching them?'],
        ['Can I bring a folding cane on the plane?', 'Can I bring a folding cane on the plain?'],
        // More of them (RULE137): the default missed this before (the verifier 0.943, the changed
        // words alone 0.783).
        ['Is ginger ale good for an upset stomach?', 'Is ginger ail good for an upset stomach?'],
        // A plural written with "ys" for "ies" (RULE139): the default missed these before (the
        // verifier 0.240 and 0.303).
        ['Can I eat rowan berries straight off the tree?', 'Can I eat rowan berrys straight off the tree?'],
        [
          'How do I make crispy sweet potato fries in an air fryer?',
          'How do I make crispy sweet potato frys in an air fryer?',
        ],
        // Steps that read what another wrote in the run before (RULE138): the default missed these
        // before, the verifier reading "how much is" against "how much does ... cost" (0.003, 0.000).
        ['Approximately how much does a real Christmas tree cost?', 'Approx how much is a real Xmas tree?'],
        [
          'How much does a round-trip ticket to New York City cost?',
          'How much is a round-trip ticket to NYC?',
        ],
        // A negative contraction's apostrophe out of place is the contraction (RULE136): the verifier
        // scored it 0.001 before.
        [
          "My dishwasher isn't draining after the cycle; what should I check first?",
          "My dishwasher is'nt draining after the cycle; what should I check first?",
        ],
        // The shorthand of recipes, notes and lists (RULE141): a recipe's "c" after a figure, "=",
        // "no. 8", "#8" and "number 2". The default missed these before (the verifier 0.001, the
        // narrowing rule, the negation rule, the narrowing rule).
        [
          'How many grams of protein in 1 cup of cooked quinoa?',
          'How many g of protein in 1 c of cooked quinoa?',
        ],
        ['How much fresh thyme equals 1 teaspoon of dried?', 'How much fresh thyme = 1 tsp of dried?'],
        [
          "What's the difference between #8 and #10 wood screws?",
          "What's the diff between no. 8 and no. 10 wood screws?",
        ],
        ['Is a number 2 pencil good for shading?', 'Is a #2 pencil good for shading?'],
        // Real words a slip of one key writes for a common one (RULE142): the default missed these
        // before (the verifier 0.656, 0.046, 0.001 and 0.002).
        [
          'Can I make sourdough bread at home without a starter?',
          'Can I make sourdough bread at hom without a starter?',
        ],
        ['Is a yam the same as a sweet potato?', 'Is a yam the sane as a sweet potato?'],
        ['How do I keep banana bread moist?', 'How do I keep banana bred moist?'],
        ['Is green tea good for a sore throat?', 'Is green tae good for a sore throat?'],
        // What a thing is for, asked in one frame and in another (RULE143): the default missed these
        // before (the verifier 0.000, 0.002 and 0.000).
        ['What is the purpose of a butter bell?', 'What is a butter bell used for?'],
        ["What's the point of a bench scraper?", 'What do people use a bench scraper for?'],
        ['What is the purpose of a dovetail saw?', 'What is a dovetail saw used for?'],
        // An age written in full on one side and short on the other (RULE144): the default missed
        // these before (the narrowing rule read "old" and "years old" as a narrower question).
        [
          'My puppy (5 months old) chews everything; what toys are safe?',
          'My puppy (5 mos) chews everything; what toys are safe?',
        ],
        [
          'My grandma is 92 and lives alone; what alert devices work best?',
          'My grandma is 92 years old and lives alone; what alert devices work best?',
        ],
        // The items of one list in another order (RULE145): the default missed these before (the
        // swapped-roles rule, and the numbers rule for the ages).
        [
          'I take magnesium, zinc and vitamin C every night; can I take them together?',
          'I take vitamin C, zinc and magnesium every night; can I take them together?',
        ],
        [
          'My kids are 4, 7 and 10; which board games can we all play?',
          'My kids are 10, 7 and 4; which board games can we all play?',
        ],
        // How often, written with "x" (RULE146): the default missed these before (the changed words
        // alone 0.731, the numbers rule, the verifier 0.001).
        [
          'I swim laps three times a week; which goggles hold up to chlorine best?',
          'I swim laps 3x a week; which goggles hold up to chlorine best?',
        ],
        [
          'My vet says to give the drops twice a day; can I mix them into food?',
          'My vet says to give the drops 2x/day; can I mix them into food?',
        ],
        [
          'I run five times a week; how often should I replace my shoes?',
          'I run 5x a wk; how often should I replace my shoes?',
        ],
        // A synonym only WordNet lists (WORDNET_GROUPS in synonym-groups.ts), in the same inflection.
        [
          'My upstairs neighbor disregards the quiet hours in our lease; what can I do about it?',
          'My upstairs neighbor ignores the quiet hours in our lease; what can I do about it?',
        ],
        // A typo of a name WordNet knows (guard/wordnet.ts), capitalised or not.
        [
          "I'm flying to Seattle in February with my cello; can I bring it on board?",
          "I'm flying to Seatle in Febuary with my cello; can I bring it on board?",
        ],
        // A typo of a word neither the English list nor WordNet's names has (RULE150): the default
        // missed these before, the verifier scoring them 0.002 and 0.884 with the changed word.
        [
          'Can I connect two Bluetooth speakers to my Android phone at the same time?',
          'Can I connect two Blutooth speakers to my Android phone at the same time?',
        ],
        [
          'Is a Chromebook good enough for Google Classroom?',
          'Is a Chromebok good enough for Google Classroom?',
        ],
        // Everyday synonyms the read sets lost again and again (RULE152): the verifier scored these
        // 0.002 and 0.035 with the word changed.
        [
          'Which is the toughest phone case for a toddler?',
          'Which is the strongest phone case for a toddler?',
        ],
        [
          'How do I sanitize a baby bottle without a steriliser?',
          'How do I disinfect a baby bottle without a steriliser?',
        ],
        // Words and short forms unseen-KT to KW lost (RULE154): the verifier scored these 0.007 and
        // 0.451 as asked.
        ['How do I hang a heavy mirror on plaster walls?', 'How do I mount a heavy mirror on plaster walls?'],
        ['What is the cosine of 60 degrees?', 'What is the cosine of 60 deg?'],
        // Everyday synonyms this stop's fresh sets lost (RULE170): the verifier scored these 0.001
        // and 0.001 as asked.
        [
          'Can I grow a lemon tree in a pot on my balcony?',
          'Can I grow a lemon tree in a container on my balcony?',
        ],
        ['What are the early signs of Lyme disease?', 'What are the first symptoms of Lyme disease?'],
        // A speed written with a slash (RULE169): the verifier scored these 0.462 and 0.005 as asked.
        [
          'What is the top speed of a cheetah in kilometers per hour?',
          'What is the top speed of a cheetah in km/h?',
        ],
        [
          'What is the speed of sound in water in meters per second?',
          'What is the speed of sound in water in m/s?',
        ],
        // Short forms the read sets lose (RULE168): the verifier scored these 0.016 and 0.020 as
        // asked.
        ['Can people with type 2 diabetes eat mangoes?', 'Can people with T2 diabetes eat mangoes?'],
        ['How do I melt chocolate in the microwave?', 'How do I melt choc in the microwave?'],
        // More everyday synonyms the read sets lose (RULE166): "legal" / "lawful" was Moby's alone
        // (RULE86's example of a pair left a miss, the words alone 0.595), and the verifier scored
        // these 0.016 and 0.644 as asked.
        ['Is it legal to collect rainwater in Colorado?', 'Is it lawful to collect rainwater in Colorado?'],
        [
          'What can I use in place of buttermilk in pancakes?',
          'What can I use instead of buttermilk in pancakes?',
        ],
        // A name written short (RULE165): the verifier scored these 0.001 and 0.001 as asked.
        ['Where can I get good dumplings in Melbourne?', 'Where can I get good dumplings in Melb?'],
        [
          "We're visiting Johannesburg in March; is the Gautrain safe at night?",
          "We're visiting Joburg in March; is the Gautrain safe at night?",
        ],
        // More everyday synonyms the read and fresh sets lose (RULE164): the verifier scored these
        // 0.003 and 0.141 as asked.
        ['How do I adjust the action on a ukulele?', 'How do I tweak the action on a ukulele?'],
        ['Can I return unused paint?', 'Can I return leftover paint?'],
        // Everyday synonyms the read sets lose again and again (RULE162): the verifier scored these
        // 0.059 and 0.005 as asked.
        ['Can you eat kiwi skin?', 'Can you eat kiwi peel?'],
        ['Can stress lead to hair loss?', 'Can stress cause hair loss?'],
        // Everyday synonyms this stop's fresh sets lost (RULE158): the verifier scored these 0.116
        // and 0.006 as asked.
        ['Do barracudas attack humans?', 'Do barracudas attack people?'],
        ['What is the most durable hiking boot?', 'What is the sturdiest hiking boot?'],
        // A contraction written twice, aligned both times (RULE155): aligned once, the verifier scored
        // the rest 0.006.
        [
          "I'm a vegan and I'm not sure about candy; are Haribo bears free of animal products in the UK?",
          'I am a vegan and I am not sure about candy; are Haribo bears free of animal products in the UK?',
        ],
        // A century written short after its ordinal, and pounds against "£" (RULE151): the default
        // missed these before, the verifier scoring the changed words 0.009 and the pounds refused
        // as a narrower subject.
        ['How should I clean a 17th century pewter plate?', 'How should I clean a 17th c. pewter plate?'],
        [
          'My builder quoted 45,000 pounds for a loft conversion in Leeds; is that reasonable?',
          'My builder quoted £45k for a loft conversion in Leeds; is that reasonable?',
        ],
        // Acronyms each spelt out by their own words, none closed by a connector.
        [
          "We're driving from Montana to New York in January; what should we pack for the car?",
          "We're driving from MT to NY in January; what should we pack for the car?",
        ],
        [
          'I study at New York University; which museums in the United States are free for students?',
          'I study at NYU; which museums in the US are free for students?',
        ],
        // "how much is X" read as "how much does X cost".
        [
          'How much does a season pass at Whistler cost for a teenager?',
          'How much is a season pass at Whistler for a teenager?',
        ],
        // A unit written short after "how many", and "x" between two figures as "by" (RULE56).
        ['How many decibels does a typical dishwasher make?', 'How many dB does a typical dishwasher make?'],
        [
          'Is a 10 by 12 foot shed big enough for a riding mower?',
          'Is a 10x12 ft shed big enough for a riding mower?',
        ],
        // More short forms (RULE57).
        [
          'Which microphone is best for recording vocals at home?',
          'Which mic is best for recording vox at home?',
        ],
        // A real word written for another between the same words (RULE58).
        ['How do I know what size helmet to buy?', 'How do I know what size helmet to by?'],
        [
          'My kids want to come along on our anniversary trip; are cruises to Alaska good for them too?',
          'My kids want to come along on our anniversary trip; are cruises to Alaska good for them to?',
        ],
        // A rare word of the English list one edit from a common one, read as its typo between the
        // same words (RULE63): the verifier scored these 0.007 and 0.003.
        [
          'Is it safe to swim in the lake when the water is cloudy after a storm?',
          'Is it safe to swim in the lake when the watter is cloudy after a storm?',
        ],
        [
          'How long should I let the grout dry before I mop the floor?',
          'How long should I let the grout dry before I mop the flor?',
        ],
        // A capitalised word of the list mistyped inside a name, between the same words (RULE64):
        // the verifier scored these 0.021 and 0.036.
        ['Are dogs allowed on the trails in Central Park?', 'Are dogs allowed on the trails in Centrl Park?'],
        ['Can I take a stroller up the Statue of Liberty?', 'Can I take a stroller up the Statue of Libery?'],
        // Canada's and Australia's postal codes (RULE65): the verifier scored these 0.011 and 0.41.
        [
          'I rent a basement apartment in Winnipeg, Manitoba; how much notice must my landlord give before raising the rent?',
          'I rent a basement apartment in Winnipeg, MB; how much notice must my landlord give before raising the rent?',
        ],
        [
          'Do I need a fishing licence to fish from the beach in Queensland?',
          'Do I need a fishing licence to fish from the beach in QLD?',
        ],
        // A part moved, and "an hour" for "1 hour" (RULE67): the verifier scored these 0.015,
        // 0.566, 0.127 and 0.004.
        [
          "I'm a freelancer in Texas and a client owes me $2,000; how do I collect?",
          "A client owes me $2,000 and I'm a freelancer in Texas; how do I collect?",
        ],
        [
          'My landlord kept my deposit last month; can I take him to small claims?',
          'Last month my landlord kept my deposit; can I take him to small claims?',
        ],
        [
          'Can I bring my cat on a train to Berlin from Munich?',
          'Can I bring my cat on a train from Munich to Berlin?',
        ],
        [
          'Is an hour of yoga a day enough exercise for a beginner?',
          'Is 1 hour of yoga a day enough exercise for a beginner?',
        ],
        // An acronym whose letters come from a compound word's parts (RULE74): the verifier
        // scored pairs of this form 0.157, 0.509 and 0.988 ("PNW" / "Pacific Northwest").
        [
          'We just moved to Portland and have a shady backyard; which native shrubs grow best in the Pacific Northwest?',
          'We just moved to Portland and have a shady backyard; which native shrubs grow best in the PNW?',
        ],
        // A compass point written short in capitals against it spelt out (RULE88): the verifier
        // scored these 0.005 and 0.191.
        [
          'We just moved into a flat with a north-facing balcony; which vegetables can we grow in pots?',
          'We just moved into a flat with a N-facing balcony; which vegetables can we grow in pots?',
        ],
        [
          'Do I need an international driving permit to rent a car in South Korea?',
          'Do I need an international driving permit to rent a car in S. Korea?',
        ],
        // A number and a half in words against ".5" (RULE85): refused by the changed-number rule
        // before (the verifier 0.001).
        [
          "My daughter is 15 and a half; can she take driver's ed online in Ohio?",
          "My daughter is 15.5; can she take driver's ed online in Ohio?",
        ],
        // "AM" after a day's word against that day's "morning" (RULE84): the verifier scored this
        // 0.000.
        [
          'My flight lands tomorrow morning; can I check into my hotel early?',
          'My flight lands tmrw AM; can I check into my hotel early?',
        ],
        // Two clauses of one sentence exchanged, the subject said twice on one side (RULE83): the
        // verifier scored this 0.014.
        [
          "I'm 70 and love playing air hockey with my grandkids; is it a good form of exercise for someone my age?",
          "I love playing air hockey with my grandkids and I'm 70; is it a good form of exercise for someone my age?",
        ],
        // A clock time with "pm" against the same hour "in the evening" (RULE82): the verifier
        // scored this 0.002.
        [
          'Is the ferry to Victoria still running at 9 in the evening?',
          'Is the ferry to Victoria still running at 9pm?',
        ],
        // The speaker first or last in a subject of two (RULE81): the verifier scored this 0.042.
        [
          'My wife and I are flying to Denver next week; can we bring a car seat on the plane?',
          'Me and my wife are flying to Denver next week; can we bring a car seat on the plane?',
        ],
        // A price in words against the same price with a sign (RULE80): the verifier scored this
        // 0.002.
        [
          "What's a good electric scooter for under five hundred dollars?",
          "What's a good electric scooter for under $500?",
        ],
        // A place's name written short as one of its own words (RULE79): refused as narrower
        // before, whatever the verifier read (0.999).
        [
          "I'm heading to Las Vegas for a poker tournament next month; what should I pack?",
          "I'm heading to Vegas for a poker tournament next month; what should I pack?",
        ],
        // A figure written for the word it sounds like (RULE78): the verifier scored these 0.018
        // and 0.000.
        ['Is whey protein safe for a 15 year old?', 'Is whey protein safe 4 a 15 year old?'],
        [
          "I'm moving into a dorm next month; what should I pack for a shared bathroom?",
          "I'm moving into a dorm next month; what should I pack 4 a shared bathroom?",
        ],
        // A comparison in one word against "less" and its opposite (RULE77): the verifier
        // scored this 0.709 against the content rule, and read-set pairs of the form 0.004 to 0.523.
        [
          "What's the quietest office chair for a shared flat?",
          "What's the least noisy office chair for a shared flat?",
        ],
        // A state's code against its name followed by "state" (RULE76): the verifier scored
        // pairs of this form 0.000 and 0.001.
        [
          "I'm in Washington state and my lawn is covered in molehills; are mole traps legal to use here?",
          "I'm in WA and my lawn is covered in molehills; are mole traps legal to use here?",
        ],
        // An airport's code against its name (RULE75): the verifier scored pairs of this form
        // 0.163, 0.390 ("LAX") and 0.006 ("SEA").
        [
          "I'm flying into Los Angeles International Airport late on Friday; which shuttle goes to Anaheim?",
          "I'm flying into LAX late on Friday; which shuttle goes to Anaheim?",
        ],
        // A word written short, some of its letters kept in order (RULE72): the verifier scored
        // pairs of this form 0.075 ("pcs") and 0.001 ("eng").
        ['How many pieces come in the Lego Titanic set?', 'How many pcs come in the Lego Titanic set?'],
        [
          'Is a building permit required for a backyard shed in Ohio?',
          "Is a building permit req'd for a backyard shed in Ohio?",
        ],
        // A real word written for another, between the same words (RULE70): the verifier scored
        // it 0.048.
        ['Is a chess board made of walnut worth it?', 'Is a chess bored made of walnut worth it?'],
        // Two parts exchanged that open with the same word (RULE69): the guard refused it as
        // swapped roles (lean) or another question word (all).
        [
          'How long and how often should I water new tomato plants?',
          'How often and how long should I water new tomato plants?',
        ],
        // A word one with the cached one's in their most frequent senses, between the same words
        // (WordNet's first senses, RULE62): the verifier scored these 0.54 and 0.001.
        [
          'Is it cheaper to rent or buy a snowboard for one season?',
          'Is it cheaper to lease or buy a snowboard for one season?',
        ],
        [
          "I'm hiking a rocky trail in Utah next week; which boots have the best ankle support?",
          "I'm hiking a stony trail in Utah next week; which boots have the best ankle support?",
        ],
      ];
      const beforeAligned = await verifications();
      await expectEach(aligned, 'semantic-hit');
      expect(await verifications()).toBe(beforeAligned);
      // A possessor moved (guard/possessor.ts): the verifier scored both 0.99 or more, the guard
      // refuses them before any verification, in either mode; so figures exchanged in place.
      const possessors: [string, string][] = [
        ["What is my grandmother's niece to me?", "What is my niece's grandmother to me?"],
        // The same in one clause beside another change (RULE140): the default served this before
        // (the verifier 0.998, the changed words alone 1.000).
        [
          "My roommate borrowed my cast iron skillet and cracked it; what's a polite way to ask him to replace it?",
          "I borrowed my roommate's cast iron skillet and cracked it; what's a polite way to offer to replace it?",
        ],
        // Figures exchanged in place (guard/swapped-numbers.ts): the verifier scored it 0.85.
        ['Can I use a 48V charger on a 36V scooter?', 'Can I use a 36V charger on a 48V scooter?'],
        [
          "My neighbor's new security camera points straight into my backyard; is that legal, and what can I do about it?",
          "My new security camera points straight into my neighbor's backyard; is that legal, and what can I do about it?",
        ],
        // The verifier scored these 0.99 or more: one picked against several (guard/picked-number.ts),
        // a part after a shared noun (guard/narrowing.ts), an opposite (hit-guard-words.ts).
        ["What's the best garden tool for a beginner?", 'What are the best garden tools for a beginner?'],
        ["What's the biggest houseboat on Lake Powell?", 'What are the biggest houseboats on Lake Powell?'],
        [
          "We're hosting a game night for two couples this weekend; what is the most popular board game for four players?",
          "We're hosting a game night for two couples this weekend; what are the most popular board games for four players?",
        ],
        // The two ends of a transfer exchanged (guard/exchanged-ends.ts); the verifier scored pairs of
        // this form 0.94 and 0.90 (unseen-CI and CM).
        [
          "I'm a photographer and I'm subletting my studio to another artist on weekends; what should our agreement say?",
          "I'm a photographer and I'm subletting a studio from another artist on weekends; what should our agreement say?",
        ],
        [
          "I'm leasing my pasture to a rancher who wants to graze cattle on it; what should the lease include to protect me?",
          "I'm leasing a pasture from a rancher so I can graze cattle on it; what should the lease include to protect me?",
        ],
        [
          "I've had my hot tub for two years and suddenly one of the jets stopped working; what could be causing it?",
          "I've had my hot tub for two years and suddenly all of the jets stopped working; what could be causing it?",
        ],
        ['How do I deep clean my oven?', 'How do I deep clean my oven racks?'],
        // Something of it after a possessive (guard/narrowing.ts), a quoted word's number (picked-number.ts).
        ['How do I clean my drone?', "How do I clean my drone's camera gimbal?"],
        // Another name in place of a name (guard/other-name.ts), scored 0.998.
        [
          'I just bought a used hybrid bike with Presta valves; how do I inflate the tires at a gas station air pump?',
          'I just bought a used hybrid bike with Schrader valves; how do I inflate the tires at a gas station air pump?',
        ],
        // A part named before its thing (guard/narrowing.ts), scored 0.998.
        ['How do I waterproof a leather bag?', 'How do I waterproof the stitching on a leather bag?'],
        ["How do I sign 'book' in ASL?", "How do I sign 'books' in ASL?"],
        [
          "I posted my daughter's birthday party as a Facebook event last night; how do I make the event private?",
          "I posted my daughter's birthday party as a Facebook event last night; how do I make the event public?",
        ],
        // A code whose figure changed (guard/changed-number.ts).
        [
          "I'm coaching my son's U9 hockey team for the first time this winter; how long should a practice be?",
          "I'm coaching my son's U14 hockey team for the first time this winter; how long should a practice be?",
        ],
        // An opposite, the only word changed, beside the same word used otherwise (guard/opposites.ts).
        [
          "I've just installed the Eufy app on my tablet; how do I turn on do not disturb mode for the doorbell?",
          "I've just installed the Eufy app on my tablet; how do I turn off do not disturb mode for the doorbell?",
        ],
        // Several counted against one (guard/picked-number.ts).
        [
          "There's a broken branch hanging over our back fence; can I cut it down myself with a pole saw?",
          'There are a dozen broken branches hanging over our back fence; can I cut them down myself with a pole saw?',
        ],
        // One against all, the verb agreeing (guard/picked-number.ts).
        [
          'Since we moved, one of the windows in the kitchen fogs up every morning; what causes that?',
          'Since we moved, all of the windows in the kitchen fog up every morning; what causes that?',
        ],
        // Two possessive pronouns exchanged (guard/possessor.ts).
        [
          "I'm teaching my niece shuffleboard; if her puck knocks my puck off the board, who scores?",
          "I'm teaching my niece shuffleboard; if my puck knocks her puck off the board, who scores?",
        ],
        // One pick against several, the nouns beside it changing number too (guard/picked-number.ts).
        [
          "We just moved into a two-story house with a basement; where's the best spot for a smoke detector?",
          'We just moved into a two-story house with a basement; where are the best spots for smoke detectors?',
        ],
        // A collective of several against one (guard/picked-number.ts).
        [
          "What's a good paddle for a beginner kayaker?",
          "What's a good set of paddles for a beginner kayaker?",
        ],
        // A counterpart role (hit-guard-words.ts, OPPOSITES).
        [
          'What are some painting tips for first-time renters?',
          'What are some painting tips for first-time landlords?',
        ],
        // Persons exchanged (guard/swapped-roles.ts, RULE71): the verifier scored it 0.981.
        ["Why can I hear him on CB but he can't hear me?", "Why can he hear me on CB but I can't hear him?"],
        // A party for its counterpart, as written (guard/opposites.ts, RULE71): scored 0.994.
        [
          'Does the grantor need to sign the deed in front of a notary?',
          'Does the grantee need to sign the deed in front of a notary?',
        ],
      ];
      const beforePossessors = await verifications();
      await expectEach(possessors, 'miss');
      expect(await verifications()).toBe(beforePossessors);
      // Every one above the threshold was verified once; the near misses the rules let through were refused by the model.
      expect(beforeAligned).toBeGreaterThanOrEqual(verifiedBefore + synonyms.length + 1);
      expect(await refusals()).toBeGreaterThanOrEqual(refusedBefore + 1);
    });

    it('honours x-service-cache-threshold: 1 refuses a paraphrase, a malformed one is a 400', async () => {
      const ns = fresh();
      await ask(ns, 'What is the capital of France?');
      const strict = await ask(ns, "what's the capital city of France?", {
        headers: { 'x-service-cache-threshold': '1' },
      });
      expect(strict.headers.get('x-service-cache')).toBe('miss');
      // A paraphrase of both stored questions (the miss above was stored too; asking it again, in
      // other case, would be the same tokens: the same question, not a paraphrase).
      const above = await ask(ns, 'Which city is the capital of France?', {
        headers: { 'x-service-cache-threshold': '7' },
      });
      expect(above.headers.get('x-service-cache')).toBe('miss');
      const malformed = await ask(ns, 'x', { headers: { 'x-service-cache-threshold': 'high' } });
      expect(malformed.status).toBe(400);
    });

    it('matches only within the same prior conversation, model, temperature and tools', async () => {
      const ns = fresh();
      const history = [
        { role: 'user', content: 'I am travelling in Europe.' },
        { role: 'assistant', content: 'Nice! How can I help?' },
      ];
      const paraphrase = "what's the capital city of France?";
      await ask(ns, 'What is the capital of France?', {
        body: { messages: [...history, { role: 'user', content: 'What is the capital of France?' }] },
      });
      const sameHistory = await ask(ns, paraphrase, {
        body: { messages: [...history, { role: 'user', content: paraphrase }] },
      });
      expect(sameHistory.headers.get('x-service-cache')).toBe('semantic-hit');
      const otherHistory = await ask(ns, paraphrase, {
        body: {
          messages: [
            { role: 'user', content: 'I am in Asia.' },
            history[1],
            { role: 'user', content: paraphrase },
          ],
        },
      });
      expect(otherHistory.headers.get('x-service-cache')).toBe('miss');
      const ns2 = fresh();
      await ask(ns2, 'What is the capital of France?');
      expect(
        (await ask(ns2, paraphrase, { body: { model: 'openai/gpt-4o-mini' } })).headers.get(
          'x-service-cache',
        ),
      ).toBe('miss');
      expect(
        (await ask(ns2, paraphrase, { body: { temperature: 0.7 } })).headers.get('x-service-cache'),
      ).toBe('miss');
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
      expect((await ask(ns2, paraphrase, { body: { tools } })).headers.get('x-service-cache')).toBe('miss');
      const format = { response_format: { type: 'json_object' } };
      expect((await ask(ns2, paraphrase, { body: format })).headers.get('x-service-cache')).toBe('miss');
      expect((await ask(ns2, "what's the capital city of France?")).headers.get('x-service-cache')).toBe(
        'semantic-hit',
      );
    });

    it('caches at temperature > 0 in semantic mode', async () => {
      const ns = fresh();
      const warm = { temperature: 0.9 };
      expect(
        (await ask(ns, 'Name three primary colours', { body: warm })).headers.get('x-service-cache'),
      ).toBe('miss');
      expect((await ask(ns, 'name 3 primary colors', { body: warm })).headers.get('x-service-cache')).toBe(
        'semantic-hit',
      );
    });

    it('keeps tool calls and results, non-text content and long messages out (exact matching only)', async () => {
      const ns = fresh();
      const toolTurn = (question: string) => ({
        messages: [
          { role: 'user', content: question },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
        tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
      });
      await ask(ns, 'x', { body: toolTurn('What is the weather in Paris?') });
      expect(
        (await ask(ns, 'x', { body: toolTurn("How's the weather in Paris?") })).headers.get(
          'x-service-cache',
        ),
      ).toBe('miss');

      const image = (text: string) => ({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
        ],
      });
      await ask(ns, 'x', { body: image('What is in this picture?') });
      expect(
        (await ask(ns, 'x', { body: image("What's in this picture?") })).headers.get('x-service-cache'),
      ).toBe('miss');

      const long = `Summarise this text please: ${'The quick brown fox jumps over the lazy dog. '.repeat(50)}`;
      await ask(ns, long);
      expect(
        (await ask(ns, `Please summarise this text: ${long.slice(27)}`)).headers.get('x-service-cache'),
      ).toBe('miss');
      // Exact matching still serves the identical long request.
      expect((await ask(ns, long)).headers.get('x-service-cache')).toBe('hit');
    });

    it('lets a turn whose tools are all declared safe in, and revalidates the tags their arguments fill in', async () => {
      const ns = fresh();
      const tools = [
        {
          type: 'function',
          function: { name: 'product', parameters: { type: 'object' } },
          'x-service-cache': { safe: true, tags: ['product:{id}'] },
        },
      ];
      const turn = (question: string, id: number) => ({
        tools,
        messages: [
          { role: 'user', content: question },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c1',
                type: 'function',
                function: { name: 'product', arguments: JSON.stringify({ id }) },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"name":"Lamp","price":30}' },
        ],
      });
      await ask(ns, 'x', { body: turn('How much does this product cost?', 42) });
      const hit = await ask(ns, 'x', { body: turn('What is the price of this product?', 42) });
      expect(hit.headers.get('x-service-cache')).toBe('semantic-hit');
      // The declaration never reaches the provider.
      expect(JSON.stringify(openai.requests.at(-1)?.body)).not.toContain('x-service-cache');
      const revalidated = await graphql(
        gateway.controlUrl,
        gateway.credentials.pat,
        'mutation { revalidateCacheTags(workspaceId: "default", tags: ["product:42"]) { invalidated } }',
      );
      expect(revalidated.errors).toBeUndefined();
      const after = await ask(ns, 'x', { body: turn('What is the price of this product?', 42) });
      expect(after.headers.get('x-service-cache')).toBe('miss');

      // One undeclared (or unsafe) tool excludes the whole turn.
      const unsafeTools = [
        ...tools,
        { type: 'function', function: { name: 'search', parameters: { type: 'object' } } },
      ];
      const mixed = (question: string) => ({
        tools: unsafeTools,
        messages: [
          { role: 'user', content: question },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'product', arguments: '{"id":7}' } },
              { id: 'c2', type: 'function', function: { name: 'search', arguments: '{"q":"lamp"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'x' },
          { role: 'tool', tool_call_id: 'c2', content: 'y' },
        ],
      });
      await ask(ns, 'x', { body: mixed('How much does this product cost?') });
      expect(
        (await ask(ns, 'x', { body: mixed('What is the price of this product?') })).headers.get(
          'x-service-cache',
        ),
      ).toBe('miss');
    });

    it('revalidates declared tool tags in exact mode too', async () => {
      const ns = fresh();
      const body = {
        tools: [
          {
            type: 'function',
            function: { name: 'stock', parameters: { type: 'object' } },
            'x-service-cache': { safe: true, tags: ['sku:{sku}'] },
          },
        ],
        messages: [
          { role: 'user', content: 'Is it in stock?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'stock', arguments: '{"sku":"AB-12"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'yes' },
        ],
      };
      const exact = (headers: Record<string, string> = {}) =>
        ask(ns, 'x', { body, headers: { 'x-service-cache': 'default', ...headers } });
      await exact();
      expect((await exact()).headers.get('x-service-cache')).toBe('hit');
      await graphql(
        gateway.controlUrl,
        gateway.credentials.pat,
        'mutation { revalidateCacheTags(workspaceId: "default", tags: ["sku:ab-12"]) { invalidated } }',
      );
      expect((await exact()).headers.get('x-service-cache')).toBe('miss');
    });

    it('stops matching an entry once its TTL has run out', async () => {
      const ns = fresh();
      await ask(ns, 'Who painted the ceiling of the Sistine Chapel?', {
        headers: { 'x-service-cache-ttl': '1' },
      });
      const paraphrase = 'who painted the sistine chapel ceiling';
      expect((await ask(ns, paraphrase)).headers.get('x-service-cache')).toBe('semantic-hit');
      // A semantic hit writes nothing, so the only candidate is the one that expires.
      await expect
        .poll(async () => (await ask(ns, paraphrase)).headers.get('x-service-cache'), {
          timeout: 5_000,
          interval: 250,
        })
        .toBe('miss');
    });

    it('drops semantic entries with a purge of the namespace', async () => {
      const ns = fresh();
      await ask(ns, 'What is the capital of France?');
      const purged = await graphql(
        gateway.controlUrl,
        gateway.credentials.pat,
        'mutation($ns: String) { purgeGatewayCache(workspaceId: "default", namespace: $ns) { generation } }',
        { ns },
      );
      expect(purged.errors).toBeUndefined();
      expect((await ask(ns, "what's the capital city of France?")).headers.get('x-service-cache')).toBe(
        'miss',
      );
    });

    it('never shares across namespaces or workspaces', async () => {
      const ns = fresh();
      await ask(ns, 'What is the capital of France?');
      expect((await ask(fresh(), "what's the capital city of France?")).headers.get('x-service-cache')).toBe(
        'miss',
      );
      // The same namespace name in another workspace of the tenant.
      await gateway.running.resources.apply({
        apiVersion: API_VERSION,
        kind: 'Tenant',
        metadata: { name: 'default' },
        spec: {
          displayName: 'Default tenant',
          workspaces: [
            { id: 'default', name: 'Default workspace' },
            { id: `other-${slug}`, name: 'Other' },
          ],
        },
      });
      await gateway.running.settled();
      const created = await graphql<{ createApiKey: { key: string } }>(
        gateway.controlUrl,
        gateway.credentials.pat,
        `mutation { createApiKey(workspaceId: "other-${slug}") { key } }`,
      );
      const otherKey = created.data?.createApiKey.key as string;
      const other = await ask(ns, "what's the capital city of France?", { key: otherKey });
      expect(other.status).toBe(200);
      expect(other.headers.get('x-service-cache')).toBe('miss');
    });

    it('replays a streamed answer verbatim on a semantic hit, and honours no-store and force-refresh', async () => {
      const ns = fresh();
      const stream = { stream: true };
      const first = await ask(ns, 'Give me three tips for better sleep', { body: stream });
      const firstText = await first.text();
      await expect
        .poll(async () => {
          const response = await ask(ns, 'give me 3 tips to sleep better', { body: stream });
          const text = await response.text();
          return response.headers.get('x-service-cache') === 'semantic-hit' ? text : undefined;
        })
        .toBe(firstText);

      const ns2 = fresh();
      await ask(ns2, 'List the planets of the solar system', { headers: { 'x-service-cache': 'no-store' } });
      expect((await ask(ns2, 'list the solar system planets')).headers.get('x-service-cache')).toBe('miss');
      const refreshed = await ask(ns2, 'List the planets of the solar system', {
        headers: { 'x-service-cache': 'force-refresh' },
      });
      expect(refreshed.headers.get('x-service-cache')).toBe('refresh');
      expect(
        // (Not "list all the planets…": the pair verifier reads "all" as one-against-all and refuses it.)
        (await ask(ns2, 'list the planets in the solar system')).headers.get('x-service-cache'),
      ).toBe('semantic-hit');
    });

    it('works on /v1/messages, with a policy that turns semantic matching on', async () => {
      const upsert = await graphql(
        gateway.controlUrl,
        gateway.credentials.pat,
        'mutation { upsertCachePolicy(input: { name: "semantic-docs", semantic: true }) { name semantic } }',
      );
      expect(upsert.errors).toBeUndefined();
      const ns = fresh();
      const message = (content: string) =>
        postJson(
          `${gateway.url}/v1/messages`,
          {
            model: 'anthropic/claude-3-5-haiku-latest',
            max_tokens: 50,
            messages: [{ role: 'user', content }],
          },
          gateway.credentials.apiKey,
          { 'x-service-cache-policy': 'semantic-docs', 'x-service-cache-namespace': ns },
        );
      expect((await message('How do I reset my password?')).headers.get('x-service-cache')).toBe('miss');
      expect((await message('how can I reset my password')).headers.get('x-service-cache')).toBe(
        'semantic-hit',
      );
    });
  });
}

/** GATEWAY_SEMCACHE=off: semantic mode is exact matching (a paraphrase misses, the same question hits). */
export function describeSemanticOff(): void {
  describe('semantic cache switched off', () => {
    let openai: FakeServer;
    let gateway: TestGateway;
    beforeAll(async () => {
      openai = await startFakeOpenAi();
      gateway = await startTestGateway({
        GATEWAY_CACHE: 'on',
        GATEWAY_SEMCACHE: 'off',
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
      });
    });
    afterAll(async () => {
      await gateway?.stop();
      await openai?.stop();
    });
    it('degrades semantic mode to exact matching', async () => {
      const ask = (content: string) =>
        postJson(
          `${gateway.url}/v1/chat/completions`,
          { model: 'openai/gpt-4o', messages: [{ role: 'user', content }], temperature: 0.5 },
          gateway.credentials.apiKey,
          { 'x-service-cache': 'semantic' },
        );
      expect((await ask('What is the capital of France?')).headers.get('x-service-cache')).toBe('miss');
      expect((await ask("what's the capital city of France?")).headers.get('x-service-cache')).toBe('miss');
      expect((await ask('What is the capital of France?')).headers.get('x-service-cache')).toBe('hit');
    });
  });
}
