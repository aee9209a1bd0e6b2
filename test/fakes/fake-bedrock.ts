/**
 * A fake Amazon Bedrock: the runtime's Converse (JSON) and ConverseStream (binary AWS
 * event-stream frames) APIs, and Bedrock Mantle's OpenAI-compatible chat completions. Every
 * request's auth is checked as AWS does it: a Bedrock API key as Bearer, or a SigV4 signature that
 * the fake recomputes with the known secret over the request as received (method, path as it came
 * on the wire, signed headers, body). A mismatch is refused with 403, a `{message}` body and
 * `x-amzn-ErrorType`, like AWS.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { FakeServer, type RecordedRequest, sendJson } from './fake-server.ts';

export const FAKE_BEDROCK_REPLY = 'Hello from the fake Bedrock upstream.';
export const FAKE_BEDROCK_STREAM = ['Hello', ' from', ' Bedrock', '.'];

export interface FakeAwsKey {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface FakeBedrockOptions {
  /** The SigV4 service the fake stands for: `bedrock` (runtime) or `bedrock-mantle`. */
  service: 'bedrock' | 'bedrock-mantle';
  /** Known AWS keys by access key id; tests may change a secret to simulate a wrong one. */
  keys?: FakeAwsKey[];
  /** Bedrock API keys accepted as Bearer tokens. */
  apiKeys?: string[];
  /** Model ids served on the runtime (`/model/{encoded id}/converse[-stream]`). */
  models?: string[];
}

export interface FakeBedrock extends FakeServer {
  /** Known secrets by access key id (mutable). */
  keys: Map<string, FakeAwsKey>;
}

const Sha256 = Hash.bind(null, 'sha256') as unknown as ConstructorParameters<typeof SignatureV4>[0]['sha256'];
const codec = new EventStreamCodec(toUtf8, fromUtf8);

// --- SigV4 verification, the way AWS does it -------------------------------------------------

export interface AuthFailure {
  status: number;
  errorType: string;
  message: string;
}

const AUTH_HEADER =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

const header = (request: RecordedRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** `20240620T120000Z` -> Date. */
function parseAmzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  return new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
}

/** Undefined when the request is authentic; else how AWS would refuse it. */
export async function verifyAwsAuth(
  request: RecordedRequest,
  service: string,
  keys: ReadonlyMap<string, FakeAwsKey>,
  apiKeys: ReadonlySet<string>,
): Promise<AuthFailure | undefined> {
  const authorization = header(request, 'authorization');
  if (authorization === undefined)
    return {
      status: 403,
      errorType: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    };
  if (authorization.startsWith('Bearer ')) {
    if (apiKeys.has(authorization.slice(7))) return undefined;
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'Invalid API Key format: Must be a valid Bedrock API key.',
    };
  }
  const parsed = AUTH_HEADER.exec(authorization);
  if (parsed === null)
    return {
      status: 400,
      errorType: 'IncompleteSignatureException',
      message: `Authorization header requires a Credential, SignedHeaders and Signature: ${authorization}`,
    };
  const [, accessKeyId, shortDate, region, scopeService, signedHeaderList, signature] =
    parsed as unknown as string[];
  const key = keys.get(accessKeyId!);
  if (key === undefined)
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  if (scopeService !== service)
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: `Credential should be scoped to correct service: '${service}'.`,
    };
  const signedHeaders = signedHeaderList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date'))
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: "'Host' or 'x-amz-date' must be a signed header.",
    };
  const signingDate = parseAmzDate(header(request, 'x-amz-date'));
  if (signingDate === undefined || !signingDate.toISOString().replace(/-/g, '').startsWith(shortDate!))
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: 'Date in Credential scope does not match X-Amz-Date.',
    };
  if (Math.abs(Date.now() - signingDate.getTime()) > 15 * 60_000)
    return { status: 403, errorType: 'InvalidSignatureException', message: 'Signature expired.' };
  const bodyHash = createHash('sha256').update(request.rawBody, 'utf8').digest('hex');
  const claimedHash = header(request, 'x-amz-content-sha256');
  if (claimedHash !== undefined && claimedHash !== bodyHash)
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  if (key.sessionToken !== undefined && header(request, 'x-amz-security-token') !== key.sessionToken)
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };

  // Recompute over exactly what was received: the path as it came on the wire (the signer escapes
  // it once more, as AWS does for every service but S3) and only the headers the client signed.
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = header(request, name) ?? '';
  const queryStart = request.path.indexOf('?');
  const path = queryStart === -1 ? request.path : request.path.slice(0, queryStart);
  const query: Record<string, string> = {};
  if (queryStart !== -1)
    for (const [name, value] of new URLSearchParams(request.path.slice(queryStart + 1))) query[name] = value;
  const signer = new SignatureV4({
    service,
    region: region!,
    credentials: {
      accessKeyId: key.accessKeyId,
      secretAccessKey: key.secretAccessKey,
      ...(key.sessionToken ? { sessionToken: key.sessionToken } : {}),
    },
    sha256: Sha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const expected = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: 'fake',
      path,
      query,
      headers,
      body: request.rawBody,
    },
    { signingDate },
  );
  const expectedSignature =
    /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1] ?? '';
  if (!timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature!)))
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  return undefined;
}

export function sendAwsError(response: ServerResponse, failure: AuthFailure): void {
  sendJson(
    response,
    failure.status,
    { message: failure.message },
    {
      'x-amzn-errortype': `${failure.errorType}:http://internal.amazon.com/coral/com.amazon.coral.service/`,
      'x-amzn-requestid': 'fake-request-id',
    },
  );
}

// --- Converse answers ----------------------------------------------------------------------

interface ConverseBody {
  messages?: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  toolConfig?: { tools?: Array<{ toolSpec?: { name: string } }>; toolChoice?: Record<string, unknown> };
}

/** The tool the fake calls: the first declared one, unless the last user turn answers a call. */
function toolToCall(body: ConverseBody): string | undefined {
  const last = body.messages?.at(-1);
  if (last?.content.some((block) => 'toolResult' in block)) return undefined;
  return body.toolConfig?.tools?.find((tool) => tool.toolSpec !== undefined)?.toolSpec?.name;
}

function replyText(body: ConverseBody): string {
  const last = body.messages?.at(-1);
  return last?.content.some((block) => 'toolResult' in block) ? 'It is 18°C in Paris.' : FAKE_BEDROCK_REPLY;
}

export function converseAnswer(body: ConverseBody) {
  const tool = toolToCall(body);
  return {
    output: {
      message: {
        role: 'assistant',
        content:
          tool === undefined
            ? [{ text: replyText(body) }]
            : [{ toolUse: { toolUseId: 'tooluse_fake01', name: tool, input: { city: 'Paris' } } }],
      },
    },
    stopReason: tool === undefined ? 'end_turn' : 'tool_use',
    usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    metrics: { latencyMs: 42 },
  };
}

export type Frame = { event: string; payload: unknown; exception?: boolean };

export function encodeFrame({ event, payload, exception }: Frame): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: exception ? 'exception' : 'event' },
      [exception ? ':exception-type' : ':event-type']: { type: 'string', value: event },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify({ ...(payload as object), ...(exception ? {} : { p: 'abcdefgh' }) })),
  });
}

export function converseStreamFrames(body: ConverseBody): Frame[] {
  const tool = toolToCall(body);
  const frames: Frame[] = [{ event: 'messageStart', payload: { role: 'assistant' } }];
  if (tool === undefined) {
    const pieces = body.messages?.at(-1)?.content.some((block) => 'toolResult' in block)
      ? ['It is 18°C', ' in Paris.']
      : FAKE_BEDROCK_STREAM;
    for (const text of pieces)
      frames.push({ event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text } } });
    frames.push({ event: 'contentBlockStop', payload: { contentBlockIndex: 0 } });
  } else {
    frames.push({
      event: 'contentBlockStart',
      payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_fake01', name: tool } } },
    });
    for (const input of ['{"city":', ' "Paris"}'])
      frames.push({
        event: 'contentBlockDelta',
        payload: { contentBlockIndex: 0, delta: { toolUse: { input } } },
      });
    frames.push({ event: 'contentBlockStop', payload: { contentBlockIndex: 0 } });
  }
  frames.push({
    event: 'messageStop',
    payload: { stopReason: tool === undefined ? 'end_turn' : 'tool_use' },
  });
  frames.push({
    event: 'metadata',
    payload: { usage: { inputTokens: 20, outputTokens: 4, totalTokens: 24 }, metrics: { latencyMs: 42 } },
  });
  return frames;
}

/** Writes the frames as one byte stream cut in uneven slices, so frames straddle network writes. */
export async function sendEventStream(
  response: ServerResponse,
  frames: Frame[],
  sliceBytes = 13,
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': 'fake-request-id',
  });
  const bytes = Buffer.concat(frames.map(encodeFrame));
  for (let offset = 0; offset < bytes.length; offset += sliceBytes) {
    if (response.destroyed) return;
    response.write(bytes.subarray(offset, offset + sliceBytes));
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

// --- The servers ---------------------------------------------------------------------------

export async function startFakeBedrock(options: FakeBedrockOptions): Promise<FakeBedrock> {
  const server = new FakeServer() as FakeBedrock;
  server.keys = new Map((options.keys ?? []).map((key) => [key.accessKeyId, { ...key }]));
  const apiKeys = new Set(options.apiKeys ?? []);
  const authentic = async (request: RecordedRequest, response: ServerResponse): Promise<boolean> => {
    const failure = await verifyAwsAuth(request, options.service, server.keys, apiKeys);
    if (failure !== undefined) sendAwsError(response, failure);
    return failure === undefined;
  };
  if (options.service === 'bedrock') {
    for (const model of options.models ?? []) {
      const base = `/model/${encodeURIComponent(model)}`;
      server.route('POST', `${base}/converse`, async (request, response) => {
        if (!(await authentic(request, response))) return;
        sendJson(response, 200, converseAnswer(request.body as ConverseBody), {
          'x-amzn-requestid': 'fake-request-id',
        });
      });
      server.route('POST', `${base}/converse-stream`, async (request, response) => {
        if (!(await authentic(request, response))) return;
        await sendEventStream(response, converseStreamFrames(request.body as ConverseBody));
      });
    }
  } else {
    server.route('POST', '/v1/chat/completions', async (request, response) => {
      if (!(await authentic(request, response))) return;
      const body = request.body as { model?: string };
      sendJson(response, 200, {
        id: 'chatcmpl-mantle',
        object: 'chat.completion',
        created: 1_761_000_000,
        model: body.model ?? 'unknown',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hello from Mantle.', refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      });
    });
  }
  return server.start() as Promise<FakeBedrock>;
}

// --- STS, for the Bedrock credential probe ---------------------------------------------------

export const FAKE_STS_ARN = 'arn:aws:iam::123456789012:user/gateway-probe';

/**
 * A fake AWS STS answering GetCallerIdentity at `POST /`: the SigV4 signature (service `sts`) is
 * checked as the runtime fake checks Bedrock's, and refusals come as STS's XML ErrorResponse.
 */
export async function startFakeSts(keys: FakeAwsKey[]): Promise<FakeBedrock> {
  const server = new FakeServer() as FakeBedrock;
  server.keys = new Map(keys.map((key) => [key.accessKeyId, { ...key }]));
  server.route('POST', '/', async (request, response) => {
    const failure =
      (await verifyAwsAuth(request, 'sts', server.keys, new Set())) ??
      (request.rawBody === 'Action=GetCallerIdentity&Version=2011-06-15'
        ? undefined
        : { status: 400, errorType: 'InvalidAction', message: 'Could not find operation for this request.' });
    response.writeHead(failure?.status ?? 200, { 'content-type': 'text/xml' });
    response.end(
      failure === undefined
        ? `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>${FAKE_STS_ARN}</Arn><UserId>AIDAFAKE</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`
        : `<ErrorResponse><Error><Type>Sender</Type><Code>${failure.errorType}</Code><Message>${failure.message}</Message></Error></ErrorResponse>`,
    );
  });
  return server.start() as Promise<FakeBedrock>;
}
