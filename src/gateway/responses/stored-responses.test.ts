import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRuntimeStore } from '../../stores/memory-runtime-store.ts';
import { createItemIdMinter } from '../../translate/responses-to-chat/index.ts';
import {
  buildTranslatedRecord,
  buildUpstreamRecord,
  listInputItems,
  normalizeInputItems,
  readRecord,
  resolveConversation,
  saveRecord,
} from './stored-responses.ts';

const SETTINGS = { ttlSeconds: 3600, maxEntryBytes: 64 * 1024 };
const SCOPE = 't1/w1';
const respId = (digit: string) => `resp_${digit.repeat(48)}`;

let store: MemoryRuntimeStore;
beforeEach(() => {
  store = new MemoryRuntimeStore();
});
afterEach(async () => {
  await store.close();
});

/** Stores one turn: `input` in, one assistant message out, chained after `ancestors`. */
async function storeTurn(id: string, input: unknown, answer: string, ancestors: string[] = []) {
  const mint = createItemIdMinter(id);
  const output = [
    {
      type: 'message',
      id: mint('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer, annotations: [] }],
    },
  ];
  const record = buildTranslatedRecord(
    { id, object: 'response', output },
    'anthropic/claude',
    normalizeInputItems(input, mint),
    ancestors,
  );
  expect(await saveRecord(store, SCOPE, record, SETTINGS)).toBe(true);
  return record;
}

describe('resolveConversation', () => {
  it('reads nothing for a request that continues nothing', async () => {
    expect(await resolveConversation(store, SCOPE, { model: 'm', input: 'hi' })).toEqual({
      history: undefined,
      ancestors: [],
      keptUpstream: undefined,
      input: 'hi',
    });
  });

  it("continues from the previous response's whole chain, oldest first", async () => {
    await storeTurn(respId('1'), 'My name is Ada.', 'Hello Ada.');
    await storeTurn(respId('2'), 'I live in Lyon.', 'Nice city.', [respId('1')]);
    const conversation = await resolveConversation(store, SCOPE, {
      model: 'm',
      input: 'Where do I live?',
      previous_response_id: respId('2'),
    });
    expect(conversation.ancestors).toEqual([respId('1'), respId('2')]);
    expect(
      conversation.history?.map((item) => [item.role, (item.content as Array<{ text: string }>)[0]?.text]),
    ).toEqual([
      ['user', 'My name is Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'I live in Lyon.'],
      ['assistant', 'Nice city.'],
    ]);
  });

  it('refuses an unknown id, and one of another workspace, with previous_response_not_found', async () => {
    await storeTurn(respId('1'), 'hi', 'hello');
    for (const [scope, id] of [
      [SCOPE, respId('9')],
      ['t1/w2', respId('1')],
      ['t2/w1', respId('1')],
    ] as const) {
      await expect(
        resolveConversation(store, scope, { model: 'm', input: 'x', previous_response_id: id }),
      ).rejects.toMatchObject({
        statusCode: 400,
        code: 'previous_response_not_found',
        message: `Previous response with id '${id}' not found.`,
      });
    }
  });

  it('refuses a chain with a link gone, never continuing with part of its history', async () => {
    await storeTurn(respId('1'), 'one', 'a');
    await storeTurn(respId('2'), 'two', 'b', [respId('1')]);
    await store.deleteStoredResponse(SCOPE, respId('1'));
    await expect(
      resolveConversation(store, SCOPE, { model: 'm', input: 'x', previous_response_id: respId('2') }),
    ).rejects.toMatchObject({
      code: 'previous_response_not_found',
      message: expect.stringContaining(respId('1')),
    });
  });

  it('is a 503 when the store does not answer, never a continuation without its history', async () => {
    const down = {
      getStoredResponses: () =>
        Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })),
    };
    await expect(
      resolveConversation(down, SCOPE, { model: 'm', input: 'x', previous_response_id: respId('1') }),
    ).rejects.toMatchObject({ statusCode: 503, code: 'service.responses_unavailable', retryable: true });
    // A request that continues nothing reads nothing: served in degraded mode.
    expect((await resolveConversation(down, SCOPE, { model: 'm', input: 'x' })).history).toBeUndefined();
  });

  it('says when OpenAI keeps the previous response', async () => {
    await saveRecord(store, SCOPE, buildUpstreamRecord('resp_openai1', 'openai/gpt-4.1'), SETTINGS);
    const conversation = await resolveConversation(store, SCOPE, {
      model: 'm',
      input: 'x',
      previous_response_id: 'resp_openai1',
    });
    expect(conversation.keptUpstream).toMatchObject({ kind: 'upstream', model: 'openai/gpt-4.1' });
    expect(conversation.history).toBeUndefined();
  });

  it("replaces item_references to the gateway's items by the items, and keeps OpenAI's as they are", async () => {
    const turn = await storeTurn(respId('3'), 'q', 'the answer');
    const outputId = (turn.response.output as Array<{ id: string }>)[0]!.id;
    const conversation = await resolveConversation(store, SCOPE, {
      model: 'm',
      input: [
        { type: 'item_reference', id: turn.input[0]!.id },
        { type: 'item_reference', id: outputId },
        { type: 'item_reference', id: 'msg_openai_own' },
        { role: 'user', content: 'next' },
      ],
    });
    expect(conversation.input).toEqual([
      turn.input[0],
      (turn.response.output as unknown[])[0],
      { type: 'item_reference', id: 'msg_openai_own' },
      { role: 'user', content: 'next' },
    ]);
    await expect(
      resolveConversation(store, 't9/w9', { model: 'm', input: [{ type: 'item_reference', id: outputId }] }),
    ).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('names no item') });
  });
});

describe('normalizeInputItems', () => {
  it('makes a string one user message with a text part, types easy messages and mints missing ids', () => {
    const mint = createItemIdMinter(respId('4'));
    expect(normalizeInputItems('hi', mint)).toEqual([
      {
        id: `msg_${'4'.repeat(48)}0000`,
        role: 'user',
        content: [{ type: 'input_text', text: 'hi' }],
        type: 'message',
      },
    ]);
    const items = normalizeInputItems(
      [
        { role: 'assistant', content: 'earlier' },
        { type: 'function_call_output', call_id: 'c1', output: 'x' },
        { type: 'message', id: 'msg_client', role: 'user', content: [{ type: 'input_text', text: 'y' }] },
      ],
      mint,
    );
    expect(items.map((item) => item.id)).toEqual([
      `msg_${'4'.repeat(48)}0001`,
      `fco_${'4'.repeat(48)}0002`,
      'msg_client',
    ]);
    expect(items[0]!.content).toEqual([{ type: 'output_text', text: 'earlier', annotations: [] }]);
  });
});

describe('saveRecord', () => {
  it('stores nothing past the entry limit', async () => {
    const record = buildTranslatedRecord(
      { id: respId('5'), output: [] },
      'anthropic/claude',
      [{ id: 'msg_1', text: 'x'.repeat(2000) }],
      [],
    );
    expect(await saveRecord(store, SCOPE, record, { ttlSeconds: 60, maxEntryBytes: 1024 })).toBe(false);
    expect(await readRecord(store, SCOPE, respId('5'))).toBeUndefined();
  });
});

describe('listInputItems', () => {
  it('lists the chain and the own input, newest first by default, paged by item id', async () => {
    await storeTurn(respId('6'), 'one', 'a');
    const second = await storeTurn(
      respId('7'),
      [
        { role: 'user', content: 'two' },
        { role: 'user', content: 'three' },
      ],
      'b',
      [respId('6')],
    );
    const texts = (page: { data: Array<Record<string, unknown>> }) =>
      page.data.map((item) => (item.content as Array<{ text: string }>)[0]?.text);
    const first = await listInputItems(store, SCOPE, second, { limit: 2, order: 'desc', after: undefined });
    expect(texts(first)).toEqual(['three', 'two']);
    expect(first.has_more).toBe(true);
    const next = await listInputItems(store, SCOPE, second, {
      limit: 2,
      order: 'desc',
      after: first.last_id ?? undefined,
    });
    expect(texts(next)).toEqual(['a', 'one']);
    expect(next.has_more).toBe(false);
    const ascending = await listInputItems(store, SCOPE, second, {
      limit: 20,
      order: 'asc',
      after: undefined,
    });
    expect(texts(ascending)).toEqual(['one', 'a', 'two', 'three']);
    expect(ascending.first_id).toBe(ascending.data[0]!.id);
  });
});
