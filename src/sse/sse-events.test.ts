import { describe, expect, it } from 'vitest';
import { type SseEvent, SseEventReader, serializeSseEvent } from './sse-events.ts';

function readAll(chunks: Uint8Array[]): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = new SseEventReader((event) => events.push(event));
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return events;
}

describe('SseEventReader', () => {
  it('parses events split at every byte boundary, including inside a multi-byte character', () => {
    const text = 'event: a\ndata: {"t":"héllo ✓"}\n\n: comment\r\ndata: [DONE]\r\n\r\n';
    const bytes = new TextEncoder().encode(text);
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte));
    expect(readAll(chunks)).toEqual([{ event: 'a', data: '{"t":"héllo ✓"}' }, { data: '[DONE]' }]);
  });

  it('skips a leading byte order mark, even split, and ends a cut-short character with U+FFFD', () => {
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const text = new TextEncoder().encode('data: a\n\ndata: é');
    const chunks = [bom.subarray(0, 1), bom.subarray(1), text.subarray(0, text.length - 1)];
    expect(readAll(chunks)).toEqual([{ data: 'a' }, { data: '\ufffd' }]);
  });

  it('delivers a last event that has no trailing blank line', () => {
    expect(readAll([new TextEncoder().encode('data: x')])).toEqual([{ data: 'x' }]);
  });
});

describe('serializeSseEvent', () => {
  it('writes multi-line data as several data lines and round-trips', () => {
    const event = { event: 'e', data: 'one\ntwo' };
    const text = serializeSseEvent(event);
    expect(text).toBe('event: e\ndata: one\ndata: two\n\n');
    expect(readAll([new TextEncoder().encode(text)])).toEqual([event]);
  });
});
