/**
 * The Redis runtime store's stored responses (response-records.ts): one string key per record,
 * under its workspace scope's hash tag, so that a conversation's records are read with one MGET
 * and written with one transaction on Redis Cluster too.
 */
import { assertStoredResponseRead, assertStoredResponseWrite } from '../response-records.ts';
import type { RuntimeStoredResponses } from '../types.ts';
import { checkTransaction, type RedisRuntimeConnection } from './connection.ts';

export class RedisStoredResponses implements RuntimeStoredResponses {
  readonly #connection: RedisRuntimeConnection;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
  }

  /** SET with PX and a PEXPIRE per earlier record, in one MULTI (PEXPIRE creates nothing that is gone). */
  async putStoredResponse(
    scope: string,
    id: string,
    record: string,
    ttlMs: number,
    keepAlive: readonly string[],
  ): Promise<void> {
    assertStoredResponseWrite(scope, id, record, ttlMs, keepAlive);
    const { client, keys } = this.#connection;
    const transaction = client.multi().set(keys.storedResponse(scope, id), record, 'PX', ttlMs);
    for (const other of keepAlive) transaction.pexpire(keys.storedResponse(scope, other), ttlMs);
    checkTransaction(await transaction.exec());
  }

  async getStoredResponses(scope: string, ids: readonly string[]): Promise<Array<string | undefined>> {
    assertStoredResponseRead(scope, ids);
    if (ids.length === 0) return [];
    const { client, keys } = this.#connection;
    const values = await client.mget(ids.map((id) => keys.storedResponse(scope, id)));
    return values.map((value) => value ?? undefined);
  }

  async deleteStoredResponse(scope: string, id: string): Promise<boolean> {
    assertStoredResponseRead(scope, [id]);
    const { client, keys } = this.#connection;
    return (await client.del(keys.storedResponse(scope, id))) === 1;
  }
}
