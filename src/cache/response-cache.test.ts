import { describe, expect, it } from 'vitest';
import { type CacheEntry, parseEntry, serializeEntry } from './response-cache.ts';

const entry = (body: string, extra: Partial<CacheEntry> = {}): CacheEntry => ({
  v: 1,
  status: 200,
  contentType: 'text/event-stream',
  body,
  stream: true,
  createdAtMs: 1_700_000_000_000,
  requestedAtMs: 1_699_999_999_000,
  ttlMs: 60_000,
  swrMs: 0,
  tags: ['user:1', 'a "quoted"\ntag'],
  costMicros: 42,
  ...extra,
});

describe('cache entry format', () => {
  it('gives back every field and the body exactly, whatever the body holds', () => {
    const bodies = [
      '',
      '{"choices":[{"message":{"content":"hi"}}]}',
      'data: {"choices":[{"delta":{"content":"a \\"b\\"\\n"}}]}\n\ndata: [DONE]\n\n',
      'line one\nline two\r\n\n\\n and a backslash \\, é, 日本, 😀',
    ];
    for (const body of bodies) {
      const written = entry(body, { question: 'what is\nthe "answer"?' });
      expect(parseEntry(serializeEntry(written))).toEqual(written);
    }
  });

  it('writes the body as it is, not escaped as a JSON string', () => {
    const text = serializeEntry(entry('data: "x"\n\n'));
    expect(text.endsWith('\ndata: "x"\n\n')).toBe(true);
    expect(text).not.toContain('\\"x\\"');
  });

  it('still reads an entry written whole as JSON, and takes anything else for a miss', () => {
    const old = entry('{"id":1}', { contentType: 'application/json', stream: false });
    expect(parseEntry(JSON.stringify(old))).toEqual(old);
    expect(parseEntry('not json')).toBeUndefined();
    expect(parseEntry('not json\nbody')).toBeUndefined();
    expect(parseEntry(`${JSON.stringify({ v: 2, status: 200 })}\nbody`)).toBeUndefined();
    expect(parseEntry('null\nbody')).toBeUndefined();
  });
});
