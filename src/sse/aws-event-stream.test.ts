import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import {
  type AwsEventStreamEvent,
  AwsEventStreamReader,
  encodeAwsEventStreamFrame,
} from './aws-event-stream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function readAll(chunks: Uint8Array[]): AwsEventStreamEvent[] {
  const events: AwsEventStreamEvent[] = [];
  const reader = new AwsEventStreamReader((event) => events.push(event));
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return events;
}

const frames = [
  encodeAwsEventStreamFrame('messageStart', { role: 'assistant', p: 'abc' }),
  encodeAwsEventStreamFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo ✓' } }),
  encodeAwsEventStreamFrame('throttlingException', { message: 'slow down' }, 'exception'),
];
const stream = Buffer.concat(frames);

describe('AwsEventStreamReader', () => {
  it('decodes event and exception frames packed in one chunk', () => {
    expect(readAll([stream])).toEqual([
      { event: 'messageStart', data: '{"role":"assistant","p":"abc"}', messageType: 'event' },
      {
        event: 'contentBlockDelta',
        data: '{"contentBlockIndex":0,"delta":{"text":"héllo ✓"}}',
        messageType: 'event',
      },
      { event: 'throttlingException', data: '{"message":"slow down"}', messageType: 'exception' },
    ]);
  });

  it('decodes the same frames whatever the chunk boundaries', () => {
    const whole = readAll([stream]);
    for (let cut = 1; cut < stream.length; cut++)
      expect(readAll([stream.subarray(0, cut), stream.subarray(cut)])).toEqual(whole);
    for (let first = 1; first < stream.length - 1; first += 7)
      for (let second = first + 1; second < stream.length; second += 5)
        expect(
          readAll([stream.subarray(0, first), stream.subarray(first, second), stream.subarray(second)]),
        ).toEqual(whole);
  });

  it('decodes error frames from their :error-code and :error-message headers', () => {
    const frame = codec.encode({
      headers: {
        ':message-type': { type: 'string', value: 'error' },
        ':error-code': { type: 'string', value: 'InternalFailure' },
        ':error-message': { type: 'string', value: 'something broke' },
      },
      body: new Uint8Array(0),
    });
    expect(readAll([frame])).toEqual([
      { event: 'InternalFailure', data: '{"message":"something broke"}', messageType: 'error' },
    ]);
  });

  it('throws on a corrupted frame (CRC mismatch)', () => {
    const corrupted = Uint8Array.from(frames[0]!);
    corrupted[corrupted.length - 6]! ^= 0xff;
    expect(() => readAll([corrupted])).toThrow(/checksum/);
  });

  it('throws when the stream ends inside a frame', () => {
    expect(() => readAll([stream.subarray(0, stream.length - 3)])).toThrow(/ended inside a frame/);
  });

  it('throws on a length that cannot be a frame', () => {
    expect(() => readAll([Uint8Array.from([0, 0, 0, 4, 0, 0, 0, 0])])).toThrow(/out of range/);
  });
});
