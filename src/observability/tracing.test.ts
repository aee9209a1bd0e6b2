import { describe, expect, it } from 'vitest';
import { otlpProtocolOf, tracingRequested } from './tracing.ts';

describe('tracing from the standard OTEL_* variables', () => {
  it('is on only with an OTLP endpoint, and off when the SDK or the exporter is disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }),
    ).toBe(false);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });

  it('sends protobuf by default, JSON when asked, the traces variable first, and protobuf with a warning for grpc', () => {
    const warnings: unknown[] = [];
    const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Parameters<
      typeof otlpProtocolOf
    >[1];
    expect(otlpProtocolOf({}, log)).toBe('http/protobuf');
    expect(otlpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, log)).toBe('http/json');
    expect(
      otlpProtocolOf(
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' },
        log,
      ),
    ).toBe('http/protobuf');
    expect(otlpProtocolOf({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' HTTP/JSON ' }, log)).toBe('http/json');
    expect(warnings).toEqual([]);
    expect(otlpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, log)).toBe('http/protobuf');
    expect(warnings).toEqual([{ protocol: 'grpc' }]);
  });
});
