/**
 * How much each fuzz property runs, and from which seed.
 *
 * - `make test` / `npm test`: each property's small default budget from a fixed seed, so that the
 *   suite is the same every time and takes seconds.
 * - `make fuzz` (scripts/fuzz.sh): FUZZ_RUNS runs per property from a random FUZZ_SEED, printed
 *   first; `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> make fuzz` replays a run. A failure's report names
 *   its seed and the command that replays it (compactReport below).
 */
import type { Parameters, Plugin } from 'fast-check';

/** The seed of the default, deterministic budget. */
export const DEFAULT_FUZZ_SEED = 20_260_101;

function readInteger(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got '${raw}'`);
  return value;
}

const runsOverride = readInteger('FUZZ_RUNS');

/** FUZZ_SEED; else a random seed for a long run (FUZZ_RUNS set), the fixed one otherwise. */
export const FUZZ_SEED =
  readInteger('FUZZ_SEED') ??
  (runsOverride === undefined ? DEFAULT_FUZZ_SEED : Math.floor(Math.random() * 0x7fff_ffff));

/** Runs of a property: its default budget under `make test`, FUZZ_RUNS under `make fuzz`. */
export function fuzzRuns(defaultRuns: number): number {
  return runsOverride ?? defaultRuns;
}

/** A value as a failure report shows it: long strings and byte arrays cut to a readable size. */
function compact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return value.length > 300 ? `${value.slice(0, 200)}…(${value.length} characters)` : value;
  if (value instanceof Uint8Array)
    return `<${value.length} bytes: ${Buffer.from(value.subarray(0, 40)).toString('hex')}…>`;
  if (depth > 6 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => compact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, 30)
      .map(([key, item]) => [key, compact(item, depth + 1)]),
  );
}

/**
 * Reports a failure with the counterexample cut to a readable size (fast-check's own report
 * prints a 300 KB body in full) and the command that replays it.
 */
const compactReport: Plugin<unknown> = () => ({
  onAllRunsComplete(details) {
    if (!details.failed) return;
    const error = details.errorInstance;
    throw new Error(
      [
        `property failed after ${details.numRuns} runs (${details.numShrinks} shrinks); seed ${details.seed}, path "${details.counterexamplePath}"`,
        `replay: FUZZ_SEED=${details.seed} FUZZ_RUNS=${details.runConfiguration.numRuns} make fuzz`,
        `counterexample: ${JSON.stringify(compact(details.counterexample))}`,
        `failure: ${error instanceof Error ? error.message : String(error)}`,
      ].join('\n'),
      { cause: error },
    );
  },
});

/** fast-check's parameters for a property whose default budget is `defaultRuns`. */
export function fuzzParameters<T>(defaultRuns: number): Parameters<T> {
  return {
    seed: FUZZ_SEED,
    numRuns: fuzzRuns(defaultRuns),
    plugins: [compactReport as Plugin<T>],
  };
}

/**
 * A vitest timeout that grows with the budget: `perRunMs` per run, plus setup slack. Per request
 * deadlines (no hang) are the properties' own; this only keeps a long run from being cut short.
 */
export function fuzzTimeout(defaultRuns: number, perRunMs: number): number {
  return 30_000 + fuzzRuns(defaultRuns) * perRunMs;
}
