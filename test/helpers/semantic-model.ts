/**
 * Where the semantic cache's model is for tests: GATEWAY_SEMCACHE_MODEL_DIR (`make test` and
 * `.ci/run` fetch it with scripts/fetch-semcache-model.sh and set it), else the script's default
 * cache folder. Without a complete model the suites that need it are skipped with the reason
 * printed, unless REQUIRE_SEMCACHE_MODEL=1 (CI), which makes its absence an error, and that of the
 * quantised derivative the script makes (model-int8-dynamic.onnx), which the gateway runs by default.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_FILES, QUANTIZED_MODEL_FILE as QUANTIZED } from '../../src/cache/semantic/local-embedder.ts';
import { DEFAULT_SEMCACHE_MODEL_DIR as DEFAULT_DIR } from '../../src/config/semcache-settings.ts';

let reported = false;

export function semanticModelDir(): string | undefined {
  const dir = process.env.GATEWAY_SEMCACHE_MODEL_DIR || DEFAULT_DIR;
  const required = process.env.REQUIRE_SEMCACHE_MODEL === '1';
  if (MODEL_FILES.every((name) => existsSync(join(dir, name)))) {
    if (required && !existsSync(join(dir, QUANTIZED)))
      throw new Error(
        `REQUIRE_SEMCACHE_MODEL=1 but ${dir} lacks ${QUANTIZED} (scripts/fetch-semcache-model.sh derives it)`,
      );
    return dir;
  }
  const reason = `the semantic cache's model is not in ${dir} (run scripts/fetch-semcache-model.sh)`;
  if (required) throw new Error(`REQUIRE_SEMCACHE_MODEL=1 but ${reason}`);
  if (!reported) process.stderr.write(`skipping the suites that need the embedding model: ${reason}\n`);
  reported = true;
  return undefined;
}
