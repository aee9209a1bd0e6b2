/**
 * A small OTLP/HTTP trace receiver on loopback (what an OpenTelemetry collector's otlphttp receiver
 * accepts): POST /v1/traces with the JSON encoding, which @opentelemetry/exporter-trace-otlp-http
 * sends. Decodes every span with its resource, ids, parent, kind and attributes, and keeps the raw
 * payloads (to search them for text that must never be exported).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  /** Every payload received, as text. */
  payloads: string[];
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

/** An id as hex: the JSON encoding carries hex strings (base64 in some exporters' older versions). */
function hexId(id: string | undefined): string | undefined {
  if (id === undefined || id === '') return undefined;
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const payloads: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        !String(request.headers['content-type']).includes('json')
      ) {
        response.writeHead(415).end();
        return;
      }
      payloads.push(text);
      const body = JSON.parse(text) as {
        resourceSpans?: {
          resource?: { attributes?: { key: string; value: AnyValue }[] };
          scopeSpans?: {
            spans?: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
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
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
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
