#!/usr/bin/env bash
# The long fuzz run (`make fuzz`, `npm run fuzz`): the properties of test/fuzz with FUZZ_RUNS runs
# each (default 2000; `make test` runs them with a small budget from a fixed seed) from a random
# seed, printed first. A failure prints its seed and counterexample; FUZZ_SEED=<seed> (with the same
# FUZZ_RUNS) replays the run. Anything after goes to vitest (a file filter, -t 'name', ...).
set -euo pipefail
export FUZZ_RUNS="${FUZZ_RUNS:-2000}"
export FUZZ_SEED="${FUZZ_SEED:-$(( (RANDOM << 15 | RANDOM) ))}"
echo "fuzz: seed $FUZZ_SEED, $FUZZ_RUNS runs per property (replay: FUZZ_SEED=$FUZZ_SEED FUZZ_RUNS=$FUZZ_RUNS make fuzz)"
exec npx vitest run --project fuzz "$@"
