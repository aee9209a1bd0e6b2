/**
 * A fake Google Vertex AI: an OAuth2 token endpoint that verifies each JWT-bearer assertion like
 * Google does (RS256 signature against the service account's public key, iss, aud = the token URL,
 * scope, at most one hour), and model endpoints that require an issued, unexpired Bearer token:
 * Gemini generateContent / streamGenerateContent?alt=sse and Claude rawPredict / streamRawPredict
 * (which insist on `anthropic_version` in the body and no `model`).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { decodeJwt, importSPKI, jwtVerify } from 'jose';
import { anthropicMessage, anthropicStreamEvents } from './fake-anthropic.ts';
import { FakeServer, type RecordedRequest, sendJson, sendSse } from './fake-server.ts';

export const FAKE_VERTEX_GEMINI_REPLY = 'Hello from the fake Vertex Gemini.';
export const VERTEX_GEMINI_MODEL = 'gemini-2.5-flash';
export const VERTEX_CLAUDE_MODEL = 'claude-3-5-sonnet@20240620';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface TestServiceAccount {
  /** The key file's JSON, as a Connection's secret or VERTEX_SERVICE_ACCOUNT_JSON holds it. */
  json: string;
  clientEmail: string;
  publicKeyPem: string;
}

/** A fresh RSA key pair in a service-account key file whose token_uri is `tokenUri`. */
export function createTestServiceAccount(options: {
  tokenUri: string;
  project: string;
  name: string;
}): TestServiceAccount {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const clientEmail = `${options.name}@${options.project}.iam.gserviceaccount.com`;
  const json = JSON.stringify({
    type: 'service_account',
    project_id: options.project,
    private_key_id: randomUUID().replaceAll('-', ''),
    private_key: privateKey,
    client_email: clientEmail,
    client_id: '100000000000000000000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: options.tokenUri,
  });
  return { json, clientEmail, publicKeyPem: publicKey };
}

interface IssuedToken {
  clientEmail: string;
  expiresAt: number;
}

/** The Google error body of a refused call. */
function googleError(response: ServerResponse, code: number, status: string, message: string): void {
  sendJson(response, code, { error: { code, message, status } });
}

export class FakeVertex extends FakeServer {
  /** Every successful grant, in order. */
  readonly grants: { clientEmail: string; token: string }[] = [];
  readonly #accounts = new Map<string, { publicKeyPem: string; tokenLifetimeSeconds: number }>();
  readonly #tokens = new Map<string, IssuedToken>();

  get tokenUri(): string {
    return `${this.url}/token`;
  }

  /** Trusts a service account's key; its tokens live `tokenLifetimeSeconds`. */
  trust(account: TestServiceAccount, tokenLifetimeSeconds = 3599): this {
    this.#accounts.set(account.clientEmail, { publicKeyPem: account.publicKeyPem, tokenLifetimeSeconds });
    return this;
  }

  /** Model requests (everything but the token endpoint). */
  modelRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.path !== '/token');
  }

  /** Serves the models under `/v1/projects/{project}/locations/{region}`. */
  serveLocation(project: string, region: string): this {
    const prefix = `/v1/projects/${project}/locations/${region}/publishers`;
    const google = `${prefix}/google/models/${VERTEX_GEMINI_MODEL}`;
    const claude = `${prefix}/anthropic/models/${VERTEX_CLAUDE_MODEL}`;
    this.route('POST', `${google}:generateContent`, this.#authorized(this.#gemini(false)));
    this.route('POST', `${google}:streamGenerateContent`, this.#authorized(this.#gemini(true)));
    this.route('POST', `${claude}:rawPredict`, this.#authorized(this.#claude(false)));
    this.route('POST', `${claude}:streamRawPredict`, this.#authorized(this.#claude(true)));
    return this;
  }

  override async start(): Promise<this> {
    this.route('POST', '/token', (request, response) => this.#grant(request, response));
    return super.start();
  }

  async #grant(request: RecordedRequest, response: ServerResponse): Promise<void> {
    const refuse = (description: string) =>
      sendJson(response, 400, { error: 'invalid_grant', error_description: description });
    const form = new URLSearchParams(request.rawBody);
    if (request.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return refuse('form encoding expected');
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return refuse('unsupported grant_type');
    const assertion = form.get('assertion') ?? '';
    let issuer: unknown;
    try {
      issuer = decodeJwt(assertion).iss;
    } catch {
      return refuse('Invalid JWT.');
    }
    const account = this.#accounts.get(String(issuer));
    if (account === undefined)
      return sendJson(response, 401, {
        error: 'invalid_client',
        error_description: 'The OAuth client was not found.',
      });
    try {
      const { payload } = await jwtVerify(assertion, await importSPKI(account.publicKeyPem, 'RS256'), {
        algorithms: ['RS256'],
        issuer: String(issuer),
        audience: this.tokenUri,
        requiredClaims: ['iat', 'exp'],
      });
      if (payload.scope !== CLOUD_PLATFORM_SCOPE) return refuse('Invalid OAuth scope.');
      if ((payload.exp as number) - (payload.iat as number) > 3600)
        return refuse('Invalid JWT: Token must be a short-lived token (60 minutes).');
    } catch {
      return refuse('Invalid JWT Signature.');
    }
    const token = `ya29.fake-${randomUUID()}`;
    this.#tokens.set(token, {
      clientEmail: String(issuer),
      expiresAt: Date.now() + account.tokenLifetimeSeconds * 1000,
    });
    this.grants.push({ clientEmail: String(issuer), token });
    sendJson(response, 200, {
      access_token: token,
      expires_in: account.tokenLifetimeSeconds,
      token_type: 'Bearer',
    });
  }

  /** Refuses a call without an issued, unexpired token, as Vertex does (401 UNAUTHENTICATED). */
  #authorized(
    handler: (request: RecordedRequest, response: ServerResponse) => void | Promise<void>,
  ): (request: RecordedRequest, response: ServerResponse) => void | Promise<void> {
    return (request, response) => {
      const header = request.headers.authorization ?? '';
      const issued = header.startsWith('Bearer ') ? this.#tokens.get(header.slice(7)) : undefined;
      if (issued === undefined || issued.expiresAt <= Date.now()) {
        googleError(
          response,
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token.',
        );
        return;
      }
      return handler(request, response);
    };
  }

  #gemini(stream: boolean) {
    const answer = (text: string, finishReason?: string) => ({
      candidates: [
        {
          content: { role: 'model', parts: [{ text }] },
          index: 0,
          ...(finishReason ? { finishReason } : {}),
        },
      ],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 6, totalTokenCount: 17 },
      modelVersion: VERTEX_GEMINI_MODEL,
      createTime: '2026-01-01T00:00:00.000000Z',
      responseId: 'vertex_fake_response',
    });
    return async (_request: RecordedRequest, response: ServerResponse) => {
      if (!stream) return sendJson(response, 200, answer(FAKE_VERTEX_GEMINI_REPLY, 'STOP'));
      await sendSse(
        response,
        [answer('Hello'), answer(' from'), answer(' Vertex.', 'STOP')].map(
          (chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`,
        ),
      );
    };
  }

  #claude(stream: boolean) {
    return async (request: RecordedRequest, response: ServerResponse) => {
      const body = request.body as { anthropic_version?: string; model?: string; stream?: boolean };
      if (body.anthropic_version !== 'vertex-2023-10-16' || body.model !== undefined) {
        sendJson(response, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'anthropic_version: vertex-2023-10-16 required; model not allowed',
          },
        });
        return;
      }
      if (stream !== (body.stream === true)) {
        googleError(response, 400, 'INVALID_ARGUMENT', 'stream must match the method');
        return;
      }
      if (stream)
        await sendSse(
          response,
          anthropicStreamEvents(VERTEX_CLAUDE_MODEL, ['Hello', ' from', ' Vertex', ' Claude.']),
        );
      else
        sendJson(response, 200, anthropicMessage(VERTEX_CLAUDE_MODEL, 'Hello from the fake Vertex Claude.'));
    };
  }
}

export async function startFakeVertex(): Promise<FakeVertex> {
  return new FakeVertex().start();
}
