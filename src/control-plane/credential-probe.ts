/**
 * testProviderCredential's upstream probe: one cheap authenticated call per provider kind that
 * proves the credential (reference/providers.md, "Credential tests"):
 *
 * | kind | probe |
 * |---|---|
 * | openai, openai-compatible | `GET {base}/models` (OpenAI-style bases include `/v1`), Bearer |
 * | anthropic | `GET {base}/v1/models`, `x-api-key` + `anthropic-version` |
 * | gemini | `GET {base}/v1beta/models`, `x-goog-api-key` |
 * | bedrock, AWS keys | SigV4-signed STS `GetCallerIdentity` (service `sts`, the Connection's region) |
 * | bedrock-mantle; bedrock with an API key | `GET {mantle}/v1/models`, Bearer key or SigV4 (service `bedrock-mantle`) |
 * | vertex | the service account's JWT-bearer token exchange at its `token_uri` |
 *
 * The result carries the upstream's status and a message with every secret value scrubbed out.
 */
import { createSigV4Signer } from '../providers/aws-sigv4.ts';
import { DEFAULT_AWS_REGION } from '../providers/bedrock.ts';
import { PROVIDERS } from '../providers/registry.ts';
import { GoogleAccessTokens, parseServiceAccount } from '../providers/vertex-token.ts';
import type { ConnectionSpec } from '../resources/crd-types.ts';
import type { ProviderKind } from '../stores/records.ts';
import { postForm } from '../upstream/form-post.ts';

export interface ProbeResult {
  ok: boolean;
  /** The upstream's HTTP status; null when no answer came (unreachable, timeout, not probed). */
  status: number | null;
  message: string;
  latencyMs: number;
}

export interface ProbeOptions {
  timeoutMs?: number;
  /** STS endpoint of the Bedrock probe, `{region}` filled in; default `https://sts.{region}.amazonaws.com/`. */
  stsUrl?: string;
}

type ProbeTarget = Pick<
  ConnectionSpec,
  'provider' | 'baseUrl' | 'awsRegion' | 'vertexProject' | 'vertexRegion'
>;

interface ProbeRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a probe learned from an answer: the status decides, this only words the message. */
type Describe = (text: string) => string | undefined;

type Probe = (
  target: ProbeTarget,
  material: Record<string, string>,
  options: ProbeOptions,
) => Promise<ProbeResult>;

const PROBE_TIMEOUT_MS = 10_000;
const MAX_MESSAGE_CHARS = 300;
const STS_BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}

function defaultBase(registryName: string): string {
  return PROVIDERS.get(registryName)?.defaultBaseUrl ?? '';
}

/** Replaces every secret value that occurs in `text` (upstreams like to echo keys back). */
export function scrubSecrets(text: string, material: Record<string, string>): string {
  let scrubbed = text;
  const values = Object.values(material)
    .filter((value) => value.length >= 4)
    .sort((left, right) => right.length - left.length);
  for (const value of values) scrubbed = scrubbed.split(value).join('[redacted]');
  return scrubbed;
}

/** The upstream's own error message, from the usual JSON and AWS XML envelopes, else the body's start. */
function upstreamMessage(text: string): string {
  const xml = /<Message>([^<]*)<\/Message>/.exec(text);
  if (xml) return xml[1] ?? '';
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown; error_description?: unknown };
    const error = json.error;
    if (typeof error === 'object' && error !== null) {
      const message = (error as { message?: unknown }).message;
      if (typeof message === 'string') return message;
    }
    if (typeof json.error_description === 'string') return json.error_description;
    if (typeof error === 'string') return error;
    if (typeof json.message === 'string') return json.message;
  } catch {
    // not JSON: the raw text below
  }
  return text.trim();
}

const countModels: Describe = (text) => {
  try {
    const json = JSON.parse(text) as { data?: unknown; models?: unknown };
    const list = Array.isArray(json.data) ? json.data : Array.isArray(json.models) ? json.models : undefined;
    return list === undefined ? undefined : `${list.length} models listed`;
  } catch {
    return undefined;
  }
};

const callerArn: Describe = (text) => {
  const arn = /<Arn>([^<]*)<\/Arn>/.exec(text)?.[1];
  return arn === undefined ? undefined : `caller ${arn}`;
};

function elapsedMs(started: number): number {
  return Math.round(performance.now() - started);
}

function unavailable(message: string): ProbeResult {
  return { ok: false, status: null, message, latencyMs: 0 };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Sends the probe request; 2xx is ok, anything else (or no answer) is not. Never throws. */
async function httpProbe(
  request: ProbeRequest,
  material: Record<string, string>,
  options: ProbeOptions,
  describe: Describe,
): Promise<ProbeResult> {
  const started = performance.now();
  const origin = originOf(request.url);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS),
      redirect: 'manual',
    });
    const text = await response.text();
    const latencyMs = elapsedMs(started);
    if (response.ok) {
      const detail = describe(text);
      const message = scrubSecrets(`credential accepted${detail ? `; ${detail}` : ''}`, material);
      return { ok: true, status: response.status, message, latencyMs };
    }
    const detail = scrubSecrets(upstreamMessage(text), material).slice(0, MAX_MESSAGE_CHARS);
    return {
      ok: false,
      status: response.status,
      message: `${origin} answered ${response.status}${detail ? `: ${detail}` : ''}`,
      latencyMs,
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    const reason = timedOut
      ? 'no answer in time'
      : typeof code === 'string'
        ? code
        : (error as Error).message;
    return {
      ok: false,
      status: null,
      message: scrubSecrets(`could not reach ${origin}: ${reason}`, material),
      latencyMs: elapsedMs(started),
    };
  }
}

/** A models list: the cheapest call most upstreams authenticate. */
function listModels(
  url: string,
  headers: Record<string, string>,
  material: Record<string, string>,
  options: ProbeOptions,
) {
  return httpProbe(
    { method: 'GET', url, headers: { accept: 'application/json', ...headers } },
    material,
    options,
    countModels,
  );
}

function openAiModels(base: string, material: Record<string, string>, options: ProbeOptions) {
  const headers: Record<string, string> = material.apiKey
    ? { authorization: `Bearer ${material.apiKey}` }
    : {};
  return listModels(`${trimBase(base)}/models`, headers, material, options);
}

function awsCredential(material: Record<string, string>) {
  if (!material.awsAccessKeyId || !material.awsSecretAccessKey) return undefined;
  return {
    accessKeyId: material.awsAccessKeyId,
    secretAccessKey: material.awsSecretAccessKey,
    ...(material.awsSessionToken ? { sessionToken: material.awsSessionToken } : {}),
  };
}

/** Signs with SigV4 and sends; `host` is left to the HTTP client (it sends the value signed). */
async function signedProbe(
  service: string,
  region: string,
  request: ProbeRequest,
  material: Record<string, string>,
  options: ProbeOptions,
  describe: Describe,
): Promise<ProbeResult> {
  const credential = awsCredential(material);
  if (credential === undefined) return unavailable('the credential has no AWS access keys');
  const sign = createSigV4Signer({ service, region, credential });
  let headers: Record<string, string>;
  try {
    headers = await sign({ ...request, body: request.body ?? '' });
  } catch {
    return unavailable(`the request to ${originOf(request.url)} could not be signed`);
  }
  delete headers.host;
  return httpProbe({ ...request, headers }, material, options, describe);
}

/** Mantle: an OpenAI-style models list with a Bedrock API key (Bearer) or SigV4 (`bedrock-mantle`). */
function mantleModels(target: ProbeTarget, material: Record<string, string>, options: ProbeOptions) {
  const region = target.awsRegion ?? DEFAULT_AWS_REGION;
  const mantleBase = defaultBase('bedrock-mantle') || 'https://bedrock-mantle.{region}.api.aws/v1';
  const base = trimBase(
    target.provider === 'bedrock-mantle' && target.baseUrl
      ? target.baseUrl
      : mantleBase.replace('{region}', region),
  );
  if (material.apiKey) return openAiModels(base, material, options);
  const request: ProbeRequest = {
    method: 'GET',
    url: `${base}/models`,
    headers: { accept: 'application/json' },
  };
  return signedProbe('bedrock-mantle', region, request, material, options, countModels);
}

const PROBES: Readonly<Record<ProviderKind, Probe>> = {
  openai: (target, material, options) =>
    openAiModels(target.baseUrl ?? defaultBase('openai'), material, options),
  'openai-compatible': async (target, material, options) =>
    target.baseUrl
      ? openAiModels(target.baseUrl, material, options)
      : unavailable('an openai-compatible Connection needs a baseUrl'),
  anthropic: (target, material, options) => {
    const url = `${trimBase(target.baseUrl ?? defaultBase('anthropic'))}/v1/models`;
    const headers = {
      'anthropic-version': '2023-06-01',
      ...PROVIDERS.get('anthropic')?.staticHeaders,
      'x-api-key': material.apiKey ?? '',
    };
    return listModels(url, headers, material, options);
  },
  gemini: (target, material, options) => {
    const url = `${trimBase(target.baseUrl ?? defaultBase('gemini'))}/v1beta/models`;
    return listModels(url, { 'x-goog-api-key': material.apiKey ?? '' }, material, options);
  },
  bedrock: (target, material, options) => {
    // A Bedrock API key signs nothing: it is proven on Mantle, which takes it as a Bearer token.
    if (material.apiKey) return mantleModels(target, material, options);
    const region = target.awsRegion ?? DEFAULT_AWS_REGION;
    const request: ProbeRequest = {
      method: 'POST',
      url: (options.stsUrl ?? 'https://sts.{region}.amazonaws.com/').replaceAll('{region}', region),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: STS_BODY,
    };
    return signedProbe('sts', region, request, material, options, callerArn);
  },
  'bedrock-mantle': mantleModels,
  vertex: async (_target, material) => {
    if (!material.gcpServiceAccountJson)
      return unavailable('probe not available for vertex with an API key: it needs a service account');
    let account: ReturnType<typeof parseServiceAccount>;
    try {
      account = parseServiceAccount(material.gcpServiceAccountJson);
    } catch (error) {
      return unavailable((error as Error).message);
    }
    const started = performance.now();
    let status: number | null = null;
    const tokens = new GoogleAccessTokens({
      transport: async (url, form) => {
        const answer = await postForm('vertex', url, form);
        status = answer.statusCode;
        return answer;
      },
    });
    try {
      await tokens.get(account);
      return {
        ok: true,
        status,
        message: `credential accepted; token issued to ${account.clientEmail}`,
        latencyMs: elapsedMs(started),
      };
    } catch (error) {
      const message = scrubSecrets((error as Error).message, material).slice(0, MAX_MESSAGE_CHARS);
      return { ok: false, status, message, latencyMs: elapsedMs(started) };
    }
  },
};

/** Probes the upstream with the Connection's credential. Never throws. */
export async function probeConnection(
  target: ProbeTarget,
  material: Record<string, string>,
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const probe = PROBES[target.provider];
  if (probe === undefined) return unavailable(`unknown provider kind '${target.provider}'`);
  try {
    return await probe(target, material, options);
  } catch (error) {
    return unavailable(scrubSecrets(`the probe failed: ${(error as Error).message}`, material));
  }
}
