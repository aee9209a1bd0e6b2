/**
 * Properties of the gateway's HTTP surface under arbitrary input: bodies of every shape and none,
 * content types, header values, cache headers, model names and paths. Whatever arrives, the
 * gateway answers within the deadline, never with a 5xx (the upstream always answers 200), never
 * with a secret of the deployment, and every error in the one envelope (gateway-checks.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzParameters, fuzzTimeout } from './fuzz-budget.ts';
import { BODY_LIMIT_BYTES, type FuzzGateway, type FuzzRequest, startFuzzGateway } from './fuzz-gateway.ts';
import {
  anyBody,
  cacheHeaders,
  contentType,
  credentialHeaders,
  deepJson,
  headerName,
  headerValue,
  modelName,
  otherHeaders,
  oversizedJson,
  ROUTE_PATHS,
  type Route,
  randomCredential,
  shapedBody,
} from './gateway-arbitraries.ts';
import { sendAndCheck } from './gateway-checks.ts';

let fuzz: FuzzGateway;
/** The workspace key and a token of every route scope: valid credentials reach the deep code. */
let validCredential: fc.Arbitrary<string>;

beforeAll(async () => {
  fuzz = await startFuzzGateway();
  const token = await fuzz.mintToken(['chat', 'embeddings', 'messages']);
  const narrowToken = await fuzz.mintToken(['chat', 'messages', 'model:openai/gpt-4o-mini']);
  validCredential = fc.constantFrom(fuzz.gateway.credentials.apiKey, token, narrowToken);
});

afterAll(async () => {
  await fuzz?.close();
});

const route = fc.constantFrom<Route>('chat', 'embeddings', 'messages', 'count_tokens', 'responses');

/** Headers of a request: its credential, content type, the cache headers and the others. */
function headersOf(
  credential: Record<string, string>,
  type: string | undefined,
  ...more: Record<string, string>[]
): Record<string, string> {
  return Object.assign({}, ...more, credential, type === undefined ? {} : { 'content-type': type });
}

function post(path: string, headers: Record<string, string>, body: string | Uint8Array): FuzzRequest {
  return { method: 'POST', path, headers, body };
}

const CHAT = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });

describe('the gateway under arbitrary requests', () => {
  it('answers shaped bodies with odd fields on every route without a 5xx, a secret or a hang', {
    timeout: fuzzTimeout(300, 100),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        route.chain(shapedBody),
        credentialHeaders(validCredential),
        fc.option(cacheHeaders, { nil: {} }),
        fc.option(otherHeaders, { nil: {} }),
        async (target, body, credential, cache, other) => {
          await sendAndCheck(
            fuzz,
            post(
              ROUTE_PATHS[target],
              headersOf(credential, 'application/json', cache, other),
              JSON.stringify(body),
            ),
          );
        },
      ),
      fuzzParameters(300),
    );
  });

  it('refuses any body and content type with a 4xx envelope, never a 5xx', {
    timeout: fuzzTimeout(150, 100),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        anyBody,
        contentType,
        validCredential,
        async (target, body, type, credential) => {
          await sendAndCheck(
            fuzz,
            post(ROUTE_PATHS[target], headersOf({ authorization: `Bearer ${credential}` }, type), body),
          );
        },
      ),
      fuzzParameters(150),
    );
  });

  it('refuses bodies nested thousands of levels deep or over the size limit with a 400 or 413', {
    timeout: fuzzTimeout(25, 400),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(route, fc.oneof(deepJson, oversizedJson), async (target, body) => {
        const answer = await sendAndCheck(
          fuzz,
          post(
            ROUTE_PATHS[target],
            headersOf({ authorization: `Bearer ${fuzz.gateway.credentials.apiKey}` }, 'application/json'),
            body,
          ),
        );
        expect(answer.status).toBe(body.length > BODY_LIMIT_BYTES ? 413 : 400);
      }),
      fuzzParameters(25),
    );
  });

  it('answers any header values (credentials, cache, content type, others) without a 5xx', {
    timeout: fuzzTimeout(150, 100),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        credentialHeaders(fc.oneof(validCredential, randomCredential)),
        contentType,
        cacheHeaders,
        otherHeaders,
        fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
        async (target, credential, type, cache, other, extra) => {
          const body =
            target === 'embeddings'
              ? JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'hi' })
              : JSON.stringify({
                  model: 'openai/gpt-4o-mini',
                  max_tokens: 8,
                  messages: [{ role: 'user', content: 'Hello' }],
                });
          await sendAndCheck(
            fuzz,
            post(ROUTE_PATHS[target], headersOf(credential, type, extra, cache, other), body),
          );
        },
      ),
      fuzzParameters(150),
    );
  });

  it('routes or refuses any model name without a 5xx', { timeout: fuzzTimeout(150, 100) }, async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        modelName,
        validCredential,
        fc.boolean(),
        async (target, model, credential, stream) => {
          const body =
            target === 'embeddings'
              ? { model, input: ['hi', 'there'] }
              : { model, max_tokens: 8, stream, messages: [{ role: 'user', content: 'Hello' }] };
          await sendAndCheck(
            fuzz,
            post(
              ROUTE_PATHS[target],
              { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
              JSON.stringify(body),
            ),
          );
        },
      ),
      fuzzParameters(150),
    );
  });

  it('lists models, and looks any model id up, for any headers and path without a 5xx', {
    timeout: fuzzTimeout(150, 100),
  }, async () => {
    const rawSegment = fc.oneof(
      modelName.map(encodeURIComponent),
      modelName.map(encodeURI),
      // Percent signs that do not make an escape, and escapes that do not make UTF-8.
      fc
        .array(
          fc.constantFrom('%', '%2', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%00', '%2F', 'a', '/', '@', '..'),
          { maxLength: 6 },
        )
        .map((parts) => parts.join('')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(rawSegment, { nil: undefined }),
        fc.option(fc.stringMatching(/^[a-z0-9=&%_-]{0,20}$/), { nil: undefined }),
        credentialHeaders(fc.oneof(validCredential, randomCredential)),
        otherHeaders,
        async (segment, query, credential, other) => {
          const path = `/v1/models${segment === undefined ? '' : `/${segment}`}${query === undefined ? '' : `?${query}`}`;
          await sendAndCheck(fuzz, { method: 'GET', path, headers: headersOf(credential, undefined, other) });
        },
      ),
      fuzzParameters(150),
    );
  });

  it('still serves a valid request after the fuzzing (nothing was left broken)', async () => {
    const answer = await sendAndCheck(
      fuzz,
      post(
        ROUTE_PATHS.chat,
        {
          authorization: `Bearer ${fuzz.gateway.credentials.apiKey}`,
          'content-type': 'application/json',
          'x-service-cache': 'off',
        },
        CHAT,
      ),
    );
    expect(answer.status).toBe(200);
  });
});
