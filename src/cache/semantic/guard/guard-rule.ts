/**
 * The contract of one guard rule, and the pair of questions every rule reads: the asked question
 * and the cached candidate's, with their features read once and the measures several rules share
 * (how much of the frame they share, which content words each lacks) computed on first use.
 */
import { type Features, featuresOf } from './features.ts';
import { lacking } from './spelling.ts';
import { commonStart, sameFrame } from './word-sequences.ts';

/** Why the guard refuses a candidate; several rules may give one reason. */
export type RefusalReason =
  | 'numbers'
  | 'changed-number'
  | 'quoted'
  | 'identifiers'
  | 'negation'
  | 'opposite'
  | 'direction'
  | 'content'
  | 'narrower'
  | 'swapped'
  | 'voice'
  | 'question'
  | 'names';

/** One reason the candidate's answer may not be the asked question's. */
export interface GuardRule {
  /** The verdict's reason when this rule refuses. */
  readonly reason: RefusalReason;
  /** Whether the candidate may not answer the question, by this rule alone. */
  refuses(pair: GuardPair): boolean;
}

/** Share of the longer question's words the two must have in common, in order, for a swapped word to be a substitution. */
export const SAME_FRAME = 0.7;
/** Opposites refuse a candidate that shares this much of the frame ("uses less fuel" is "more fuel-efficient" reworded). */
export const OPPOSED_FRAME = 0.5;
/** Or as many words they begin with alike (the same question about a different thing). */
export const SAME_TEMPLATE = 5;

/** The asked question and a candidate's question, as the rules read them. */
export class GuardPair {
  readonly question: string;
  readonly candidate: string;
  readonly asked: Features;
  readonly cached: Features;
  #frame: number | undefined;
  #template: number | undefined;
  #onlyAsked: string[] | undefined;
  #onlyCached: string[] | undefined;

  constructor(question: string, candidate: string) {
    this.question = question;
    this.candidate = candidate;
    this.asked = featuresOf(question);
    this.cached = featuresOf(candidate);
  }

  /** The words the two share in order (their longest common subsequence), as a share of the longer. */
  get frame(): number {
    this.#frame ??= sameFrame(this.asked.words, this.cached.words);
    return this.#frame;
  }

  /** How many words the two begin with alike. */
  get template(): number {
    this.#template ??= commonStart(this.asked.words, this.cached.words);
    return this.#template;
  }

  /** Content words of the asked question the candidate lacks, a spelling or typo apart forgiven. */
  get onlyAsked(): string[] {
    this.#onlyAsked ??= lacking(this.asked, this.cached);
    return this.#onlyAsked;
  }

  /** Content words of the candidate the asked question lacks. */
  get onlyCached(): string[] {
    this.#onlyCached ??= lacking(this.cached, this.asked);
    return this.#onlyCached;
  }
}
