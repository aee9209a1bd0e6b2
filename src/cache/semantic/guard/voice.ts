/**
 * Voice: a passive whose roles the other question gives the other way round ("animals eaten by
 * owls" / "animals eat owls", "my teenager is being bullied" / "... is bullying others", "who was
 * Snape killed by" / "who was killed by Snape"). The same roles in either voice are a rewording
 * ("what is eaten by owls" / "what do owls eat").
 */
import type { Features } from './features.ts';
import type { GuardRule } from './guard-rule.ts';
import { PASSIVE_AUXILIARIES } from './hit-guard-words.ts';
import { isActor, isParticiple, normaliseWord, verbOf } from './normalise.ts';

const PASSIVE_AUXILIARY: ReadonlySet<string> = new Set(PASSIVE_AUXILIARIES);
/** How far before or after a verb its subject or object is looked for, in words. */
const ROLE_REACH = 4;

/** The nearest actor (content word or person) from `from`, stepping by `step`, within ROLE_REACH words. */
function nearestActor(tokens: readonly string[], from: number, step: 1 | -1): string | undefined {
  for (let at = from, seen = 0; at >= 0 && at < tokens.length && seen < ROLE_REACH; at += step, seen += 1) {
    const word = normaliseWord(tokens[at] as string)[0];
    if (isActor(word)) return word;
  }
  return undefined;
}

interface Passive {
  verb: string;
  /** Where the participle is. */
  at: number;
  /** Followed by a preposition that makes it read as an adjective ("scared of"). */
  adjectival: boolean;
  /** Who undergoes it (its subject). */
  patient?: string;
  /** Who does it (its "by" phrase). */
  agent?: string;
}

/** Prepositions after which a participle reads as an adjective ("scared of", "interested in", "married to"). */
const ADJECTIVAL_AFTER: ReadonlySet<string> = new Set(['of', 'about', 'with', 'in', 'to', 'at']);

/**
 * Passive clauses ("animals are eaten by owls", "my teenager is being bullied", "was Snape killed
 * by"): their verb, patient and agent. The patient is the actor between the auxiliary and the
 * participle (a question) or else the one before the auxiliary.
 */
function passivesOf(tokens: readonly string[]): Passive[] {
  const clauses: Passive[] = [];
  tokens.forEach((token, index) => {
    if (!PASSIVE_AUXILIARY.has(token)) return;
    let at = index + 1;
    while (at < tokens.length && at <= index + ROLE_REACH && !isParticiple(tokens[at])) at += 1;
    const participle = tokens[at];
    if (participle === undefined || !isParticiple(participle)) return;
    const between = tokens.slice(index + 1, at);
    const patient = nearestActor(between, between.length - 1, -1) ?? nearestActor(tokens, index - 1, -1);
    const agent = tokens[at + 1] === 'by' ? nearestActor(tokens, at + 2, 1) : undefined;
    clauses.push({
      verb: verbOf(participle),
      at,
      adjectival: ADJECTIVAL_AFTER.has(tokens[at + 1] ?? ''),
      ...(patient === undefined ? {} : { patient }),
      ...(agent === undefined ? {} : { agent }),
    });
  });
  return clauses;
}

/**
 * Whether one question puts a verb in the passive and the other has the roles the other way round:
 * "animals eaten by owls" is "owls eat animals", not "animals eat owls"; "my teenager is being
 * bullied" is not "my teenager is bullying others"; "who was Snape killed by" is not "who was
 * killed by Snape". The same roles in either voice ("what is eaten by owls" / "what do owls eat")
 * are a rewording.
 */
function voiceSwapped(passive: Features, other: Features): boolean {
  const theirPassives = passivesOf(other.tokens);
  const passiveAt = new Set(theirPassives.map((clause) => clause.at));
  return passivesOf(passive.tokens).some((clause) => {
    const bothPassive = theirPassives.some(
      (theirs) =>
        theirs.verb === clause.verb &&
        ((clause.patient !== undefined && clause.patient === theirs.agent) ||
          (clause.agent !== undefined && clause.agent === theirs.patient)),
    );
    if (bothPassive) return true;
    return other.tokens.some((token, index) => {
      if (passiveAt.has(index) || isParticiple(token) || verbOf(token) !== clause.verb) return false;
      const agent = nearestActor(other.tokens, index - 1, -1);
      const patient = nearestActor(other.tokens, index + 1, 1);
      // The passive's agent as the active verb's object ("animals eaten by owls" / "animals eat owls").
      if (clause.agent !== undefined && clause.agent === patient) return true;
      // Its patient as the subject of an active verb with an object of its own ("is being bullied" /
      // "is bullying others"); without one it may be the same event ("volcanoes are formed" /
      // "volcanoes form").
      return (
        !clause.adjectival &&
        clause.patient !== undefined &&
        clause.patient === agent &&
        patient !== undefined &&
        patient !== clause.patient
      );
    });
  });
}

export const swappedVoice: GuardRule = {
  reason: 'voice',
  refuses: ({ asked, cached }) => voiceSwapped(asked, cached) || voiceSwapped(cached, asked),
};
