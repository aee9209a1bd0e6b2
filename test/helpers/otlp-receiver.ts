/**
 * A small OTLP/HTTP trace receiver on loopback (what an OpenTelemetry collector's otlphttp receiver
 * accepts): POST /v1/traces in either encoding, protobuf (`application/x-protobuf`, the default) or
 * JSON (`application/json`). Decodes every span with its resource, ids, parent, kind and
 * attributes, and keeps the raw payloads (to search them for text that must never be exported:
 * protobuf carries strings as UTF-8 bytes, so a text search of the payload finds them too).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * The part of opentelemetry-proto's trace service the receiver reads (field numbers as in
 * opentelemetry/proto/{collector/trace,trace,resource,common}/v1); the rest (events, links, times)
 * is skipped as unknown fields.
 */
const OTLP_TRACE_PROTO = protobuf.Root.fromJSON({
  nested: {
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        status: { type: 'Status', id: 15 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
  },
}).lookupType('ExportTraceServiceRequest');

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean | unknown[]>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean | unknown[]>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Every payload received, as text (protobuf payloads decoded as UTF-8, strings readable). */
  payloads: string[];
  /** The content type of every payload received, in order. */
  contentTypes: string[];
  /** Resolves with the spans once `predicate` holds for them. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): Promise<void>;
}

function decodeValue(value: AnyValue | undefined): string | number | boolean | unknown[] {
  if (value === undefined) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue);
  return '';
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined) {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

/** An id as hex: the JSON encoding carries hex strings (base64 in some exporters' older versions); protobuf decodes to hex here. */
function hexId(id: string | Uint8Array | undefined): string | undefined {
  if (id === undefined || id.length === 0) return undefined;
  if (typeof id !== 'string') return Buffer.from(id).toString('hex');
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const payloads: string[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payload = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type']);
      const json = contentType === 'application/json';
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!json && contentType !== 'application/x-protobuf') {
        response.writeHead(415).end();
        return;
      }
      payloads.push(payload.toString('utf8'));
      contentTypes.push(contentType);
      const body = (
        json
          ? JSON.parse(payload.toString('utf8'))
          : OTLP_TRACE_PROTO.toObject(OTLP_TRACE_PROTO.decode(payload), { longs: String, oneofs: false })
      ) as {
        resourceSpans?: {
          resource?: { attributes?: { key: string; value: AnyValue }[] };
          scopeSpans?: {
            spans?: {
              traceId: string | Uint8Array;
              spanId: string | Uint8Array;
              parentSpanId?: string | Uint8Array;
              name: string;
              kind: number;
              attributes?: { key: string; value: AnyValue }[];
              status?: { code?: number };
            }[];
          }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: hexId(span.traceId) as string,
              spanId: hexId(span.spanId) as string,
              parentSpanId: hexId(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      // An empty ExportTraceServiceResponse in the request's encoding.
      response.writeHead(200, { 'content-type': contentType }).end(json ? '{}' : '');
      for (const wake of waiters) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    payloads,
    contentTypes,
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate(spans)) return Promise.resolve(spans);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `spans expected did not arrive in ${timeoutMs} ms; got: ${spans.map((span) => span.name).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(spans);
        };
        waiters.add(check);
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
