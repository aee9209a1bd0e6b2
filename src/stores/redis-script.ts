/**
 * A Lua script run by EVALSHA, falling back to EVAL when the server does not know it (first use,
 * or after a restart or SCRIPT FLUSH). NOSCRIPT means the script did not run, so the second send
 * never applies a write twice.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

export class RedisScript {
  readonly #source: string;
  readonly #sha: string;
  readonly #numberOfKeys: number;

  constructor(source: string, numberOfKeys: number) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
    this.#numberOfKeys = numberOfKeys;
  }

  async run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    if (keys.length !== this.#numberOfKeys) {
      throw new Error(`script expects ${this.#numberOfKeys} keys, got ${keys.length}`);
    }
    try {
      return await client.evalsha(this.#sha, this.#numberOfKeys, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, this.#numberOfKeys, ...keys, ...args);
    }
  }
}
