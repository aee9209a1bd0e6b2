import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AdminApiError,
  AdminClient,
  AdminError,
  AdminTransportError,
  isAdminApiError,
  PlatformAdminClient,
} from '../src/index.ts';
import { type FakeAnswer, fakeFetch } from './fake-fetch.ts';

const URL = 'http://control.test:8081';
const PAT = 'tt_pat_never-shown-0123456789';

function clientWith(...answers: FakeAnswer[]) {
  const fake = fakeFetch(...answers);
  return { fake, client: new AdminClient({ url: URL, token: PAT, fetch: fake.fetch }) };
}

async function failure(promise: Promise<unknown>): Promise<AdminError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AdminError);
    return error as AdminError;
  }
  throw new Error('the call succeeded');
}

describe('GraphQL errors', () => {
  it('become an AdminApiError with extensions.code, path, HTTP status and operation', async () => {
    const { client } = clientWith({
      json: {
        data: null,
        errors: [
          {
            message: 'ttlSeconds must be at most 86400 (24 hours)',
            path: ['mintEphemeralToken'],
            extensions: { code: 'VALIDATION_ERROR' },
          },
        ],
      },
    });
    const error = await failure(
      client.mintEphemeralToken({ parentKeyId: 'k', scopes: ['chat'], ttlSeconds: 90_000 }),
    );
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({
      name: 'AdminApiError',
      code: 'VALIDATION_ERROR',
      status: 200,
      operation: 'MintEphemeralToken',
      path: ['mintEphemeralToken'],
      retryable: false,
    });
    expect(error.message).toBe('MintEphemeralToken: ttlSeconds must be at most 86400 (24 hours)');
    expect(isAdminApiError(error, 'VALIDATION_ERROR')).toBe(true);
    expect(isAdminApiError(error, 'NOT_FOUND')).toBe(false);
  });

  it('carry the status of authentication failures', async () => {
    const { client } = clientWith({
      status: 401,
      json: {
        errors: [
          { message: 'unknown or revoked personal access token', extensions: { code: 'UNAUTHENTICATED' } },
        ],
      },
    });
    const error = (await failure(client.listWorkspaces())) as AdminApiError;
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, path: undefined });
  });

  it('keep every error and name how many more there were', async () => {
    const { client } = clientWith({
      status: 400,
      json: {
        errors: [
          { message: 'first', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
          { message: 'second', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
        ],
      },
    });
    const error = (await failure(client.listPats())) as AdminApiError;
    expect(error.errors).toHaveLength(2);
    expect(error.message).toBe('Pats: first (and 1 more)');
  });

  it('without a code are UNKNOWN', async () => {
    const { client } = clientWith({ json: { errors: [{ message: 'odd' }] } });
    expect(await failure(client.listPats())).toMatchObject({ code: 'UNKNOWN' });
  });

  it('on the server side are retryable', async () => {
    const { client } = clientWith({
      json: {
        data: null,
        errors: [{ message: 'internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      },
    });
    expect((await failure(client.listPats())).retryable).toBe(true);
  });

  it('on the admin API are mapped the same way', async () => {
    const fake = fakeFetch({
      status: 403,
      json: {
        errors: [{ message: '/admin/graphql needs a platform-admin PAT', extensions: { code: 'FORBIDDEN' } }],
      },
    });
    const platform = new PlatformAdminClient({ url: URL, token: PAT, fetch: fake.fetch });
    expect(await failure(platform.getTenantTree())).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      operation: 'AdminTenantTree',
    });
  });
});

describe('REST errors', () => {
  it('map the envelope to an AdminApiError with code, fields and status', async () => {
    const { client } = clientWith({
      status: 400,
      json: {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'name and email are required',
          fields: ['name', 'email'],
        },
      },
    });
    const error = (await failure(client.createOrganization({ name: '', email: '' }))) as AdminApiError;
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      fields: ['name', 'email'],
      operation: 'POST /auth/org/create',
    });
    expect(error.message).toBe('POST /auth/org/create: name and email are required');
  });

  it('carry Retry-After of a rate limit and are retryable', async () => {
    const { client } = clientWith({
      status: 429,
      headers: { 'retry-after': '42' },
      json: { error: { code: 'RATE_LIMITED', message: 'too many provisioning calls' } },
    });
    const error = (await failure(
      client.provisionTenant({ name: 'x' }, { provisioningKey: 'tt_prov_x' }),
    )) as AdminApiError;
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfterSeconds: 42,
      retryable: true,
    });
  });

  it('of a PAT used to provision are FORBIDDEN', async () => {
    const { client } = clientWith({
      status: 403,
      json: { error: { code: 'FORBIDDEN', message: 'only a provisioning key may provision tenants' } },
    });
    expect(await failure(client.provisionTenant({ name: 'x' }, { provisioningKey: PAT }))).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
    });
  });
});

describe('transport failures', () => {
  it('a network error is an AdminTransportError NETWORK_ERROR, retryable, with its cause', async () => {
    const cause = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const { client } = clientWith({ error: cause });
    const error = await failure(client.listWorkspaces());
    expect(error).toBeInstanceOf(AdminTransportError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true, status: undefined });
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('an answer that is not GraphQL (a proxy page) is UNEXPECTED_RESPONSE with its status', async () => {
    const { client } = clientWith({ status: 502, text: '<html>Bad gateway</html>' });
    expect(await failure(client.listWorkspaces())).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
      retryable: true,
    });
  });

  it('a JSON answer without data or errors is UNEXPECTED_RESPONSE', async () => {
    const { client } = clientWith({ status: 404, json: { message: 'Route POST:/graphql not found' } });
    expect(await failure(client.listWorkspaces())).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 404,
      retryable: false,
    });
  });

  it('a REST error without the envelope is UNEXPECTED_RESPONSE', async () => {
    const { client } = clientWith({ status: 500, text: 'oops' });
    expect(await failure(client.createOrganization({ name: 'a', email: 'b@c.d' }))).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 500,
    });
  });

  it('a call that takes too long is TIMEOUT', async () => {
    const fake = fakeFetch({ hang: true });
    const client = new AdminClient({ url: URL, token: PAT, fetch: fake.fetch, timeoutMs: 20 });
    expect(await failure(client.listWorkspaces())).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('a call the caller aborts is ABORTED, not retryable', async () => {
    const { client } = clientWith({ hang: true });
    const controller = new AbortController();
    const pending = client.listWorkspaces({ signal: controller.signal });
    controller.abort();
    expect(await failure(pending)).toMatchObject({ code: 'ABORTED', retryable: false });
  });
});

describe('secrets', () => {
  it('never appear in an error message', async () => {
    const answers: FakeAnswer[] = [
      { error: new TypeError('fetch failed') },
      { status: 502, text: 'bad' },
      {
        status: 401,
        json: { errors: [{ message: 'unknown token', extensions: { code: 'UNAUTHENTICATED' } }] },
      },
    ];
    for (const answer of answers) {
      const { client } = clientWith(answer);
      const error = await failure(
        client.upsertConnection({ provider: 'openai', apiKey: 'sk-upstream-secret' }),
      );
      const shown = `${error.message} ${inspect(error)} ${JSON.stringify(error)}`;
      for (const secret of [PAT, 'sk-upstream-secret']) expect(shown).not.toContain(secret);
    }
  });

  it('are not shown when a client is inspected or serialised', () => {
    const client = new AdminClient({ url: URL, token: PAT });
    const platform = new PlatformAdminClient({ url: URL, token: PAT });
    for (const shown of [
      inspect(client, { depth: 5 }),
      JSON.stringify(client),
      inspect(platform, { depth: 5 }),
    ]) {
      expect(shown).not.toContain(PAT);
    }
  });
});
