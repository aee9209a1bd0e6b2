import { describe, expect, it } from 'vitest';
import { MemoryStoredResponses } from './stored-responses.ts';

describe('MemoryStoredResponses', () => {
  it('evicts the least recently used records past its byte budget, a read counting as a use', async () => {
    // Each record below takes (key + value) * 2 bytes: about 1,030 of the 3,000.
    const responses = new MemoryStoredResponses(3000);
    const record = 'x'.repeat(500);
    await responses.putStoredResponse('t/w', 'a', record, 60_000, []);
    await responses.putStoredResponse('t/w', 'b', record, 60_000, []);
    expect(await responses.getStoredResponses('t/w', ['a'])).toEqual([record]);
    await responses.putStoredResponse('t/w', 'c', record, 60_000, []);
    expect(await responses.getStoredResponses('t/w', ['a', 'b', 'c'])).toEqual([record, undefined, record]);
  });

  it('keeps no record larger than its whole budget, and drops the one it replaced', async () => {
    const responses = new MemoryStoredResponses(1000);
    await responses.putStoredResponse('t/w', 'a', 'small', 60_000, []);
    await responses.putStoredResponse('t/w', 'a', 'y'.repeat(600), 60_000, []);
    expect(await responses.getStoredResponses('t/w', ['a'])).toEqual([undefined]);
  });

  it('sweeps expired records', async () => {
    const responses = new MemoryStoredResponses();
    await responses.putStoredResponse('t/w', 'a', 'v', 1, []);
    responses.sweep(Date.now() + 10);
    expect(await responses.deleteStoredResponse('t/w', 'a')).toBe(false);
  });
});
