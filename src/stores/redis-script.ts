/**
 * A Lua script run by EVALSHA, falling back to EVAL when the server does not know it (first use,
 * or after a restart or SCRIPT FLUSH). NOSCRIPT means the script did not run, so the second send
 * never applies a write twice.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

/**
 * ioredis defines `<command>Buffer` for every command but types few of them. Not callBuffer: with
 * auto-pipelining it loses the command's name (ioredis 5 hands the pipeline the arguments without it).
 */
interface BufferEval {
  evalshaBuffer(sha: string, numberOfKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  evalBuffer(source: string, numberOfKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
}

/** EVALSHA and EVAL, as one kind of reply. */
interface Eval {
  evalsha(sha: string, numberOfKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  eval(source: string, numberOfKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
}

export class RedisScript {
  readonly #source: string;
  readonly #sha: string;
  readonly #numberOfKeys: number;

  constructor(source: string, numberOfKeys: number) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
    this.#numberOfKeys = numberOfKeys;
  }

  run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    return this.#send(keys, args, {
      evalsha: (...call) => client.evalsha(...call),
      eval: (...call) => client.eval(...call),
    });
  }

  /** As run, with the reply's strings as Buffers (binary replies). */
  runBuffer(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    const buffers = client as unknown as BufferEval;
    return this.#send(keys, args, {
      evalsha: (...call) => buffers.evalshaBuffer(...call),
      eval: (...call) => buffers.evalBuffer(...call),
    });
  }

  async #send(
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
    commands: Eval,
  ): Promise<unknown> {
    this.#checkKeys(keys);
    try {
      return await commands.evalsha(this.#sha, this.#numberOfKeys, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return commands.eval(this.#source, this.#numberOfKeys, ...keys, ...args);
    }
  }

  #checkKeys(keys: readonly string[]): void {
    if (keys.length !== this.#numberOfKeys) {
      throw new Error(`script expects ${this.#numberOfKeys} keys, got ${keys.length}`);
    }
  }
}
