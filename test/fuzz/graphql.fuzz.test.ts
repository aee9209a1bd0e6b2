/**
 * Properties of the control plane's GraphQL endpoints (`/graphql` with a PAT, `/admin/graphql`
 * with the platform-admin PAT) under arbitrary requests: documents drawn from the real schema with
 * arguments and variables of every type, and requests that are not (token soup, documents over
 * the length limit, nested past the depth limit, variables nested deep, bodies of the wrong shape).
 * Whatever arrives: an answer within the deadline, never a 5xx, every error with a code in
 * `extensions.code`, and no secret in the answer: neither the deployment's nor one the request
 * itself sent as a credential's key (upsertProviderCredential's apiKey and the like).
 */
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAT_PERMISSIONS } from '../../src/auth/permissions.ts';
import { buildAdminSchema } from '../../src/control-plane/graphql/admin.ts';
import { buildControlPlaneSchema } from '../../src/control-plane/graphql/schema.ts';
import { fuzzParameters, fuzzTimeout } from './fuzz-budget.ts';
import {
  ANTHROPIC_CONNECTION_SLUG,
  CONNECTION_SLUG,
  type FuzzGateway,
  type FuzzRequest,
  startFuzzGateway,
} from './fuzz-gateway.ts';
import { describeRequest } from './gateway-checks.ts';
import {
  type DocumentOptions,
  type GraphQLRequestBody,
  SECRET_PATTERN,
  schemaRequest,
  unstructuredRequest,
} from './graphql-documents.ts';

let fuzz: FuzzGateway;
let options: DocumentOptions;

beforeAll(async () => {
  fuzz = await startFuzzGateway();
  const { credentials } = fuzz.gateway;
  options = {
    // Its probes call the Connection's upstream, which a fuzzed Connection may put on the internet.
    skipFields: new Set(['testProviderCredential']),
    knownStrings: [
      credentials.tenantId,
      credentials.workspaceId,
      credentials.apiKeyId,
      CONNECTION_SLUG,
      ANTHROPIC_CONNECTION_SLUG,
      'docs',
      'chat',
      'embeddings',
      'messages',
      'model:openai/gpt-4o',
      'chat:write',
      'embed',
      'openai',
      'bedrock-mantle',
      'openai-compatible',
      'product:42',
      `${fuzz.upstream.url}/v1`,
      'us-east-1',
      ...PAT_PERMISSIONS,
    ],
    // Left alone so that the run keeps reaching the resolvers: the one tenant stays active and
    // its workspace key stays valid (a suspension or revocation answers 403/401 from then on).
    forbidden: new Map([
      ['suspendTenant.id', [credentials.tenantId]],
      ['revokeApiKey.id', [credentials.apiKeyId]],
    ]),
  };
});

afterAll(async () => {
  await fuzz?.close();
});

type Path = '/graphql' | '/admin/graphql';

interface GraphQLAnswerBody {
  data?: unknown;
  errors?: { message?: unknown; extensions?: { code?: unknown } }[];
}

/** Sends a GraphQL request and checks what every answer must satisfy. */
async function sendAndCheck(path: Path, credential: string | undefined, body: GraphQLRequestBody | string) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const request: FuzzRequest = {
    method: 'POST',
    path,
    headers: {
      'content-type': 'application/json',
      ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
    },
    body: text,
  };
  const answer = await fuzz.send(request, 'control');
  const fail = (problem: string): never => {
    throw new Error(
      `${problem}\n  request: ${describeRequest(request)}\n  answer: ${answer.status} ${answer.text.slice(0, 800)}`,
    );
  };
  if (answer.status >= 500) fail(`a ${answer.status} from the control plane`);
  const leaked = fuzz.leakedSecret(answer);
  if (leaked !== undefined) fail(`the ${leaked} appears in the answer`);
  const sentSecrets = text.match(SECRET_PATTERN) ?? [];
  const echoed = sentSecrets.find(
    (secret) =>
      answer.text.includes(secret) || [...answer.headers.values()].some((value) => value.includes(secret)),
  );
  if (echoed !== undefined) fail(`the secret sent as a credential's key (${echoed}) appears in the answer`);
  let parsed: GraphQLAnswerBody;
  try {
    parsed = JSON.parse(answer.text) as GraphQLAnswerBody;
  } catch {
    return fail('an answer that is not JSON');
  }
  if (parsed.errors !== undefined) {
    if (!Array.isArray(parsed.errors) || parsed.errors.length === 0)
      fail('errors that are not a non-empty list');
    for (const error of parsed.errors) {
      if (typeof error.message !== 'string' || typeof error.extensions?.code !== 'string')
        fail('an error without a message and extensions.code');
    }
  } else if (answer.status !== 200 || parsed.data === undefined) {
    fail('an answer with neither data nor errors');
  }
  return { status: answer.status, body: parsed };
}

function credentialFor(path: Path): fc.Arbitrary<string | undefined> {
  const { pat, adminPat } = fuzz.gateway.credentials;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(path === '/graphql' ? pat : adminPat) },
    { weight: 1, arbitrary: fc.constant(path === '/graphql' ? adminPat : pat) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.stringMatching(/^tt_pat_[A-Za-z0-9_-]{0,50}$/) },
  );
}

function schemaProperty(path: Path, schema: () => GraphQLSchema) {
  return fc.asyncProperty(fc.gen(), credentialFor(path), async (g, credential) => {
    await sendAndCheck(path, credential, schemaRequest(g, schema(), options));
  });
}

describe('the control plane under arbitrary GraphQL', () => {
  const tenantSchema = buildControlPlaneSchema();
  const adminSchema = buildAdminSchema();

  it('answers documents drawn from the /graphql schema without a 5xx, an uncoded error or a secret', {
    timeout: fuzzTimeout(250, 200),
  }, async () => {
    await fc.assert(
      schemaProperty('/graphql', () => tenantSchema),
      fuzzParameters(250),
    );
  });

  it('answers documents drawn from the /admin/graphql schema the same way', {
    timeout: fuzzTimeout(60, 200),
  }, async () => {
    await fc.assert(
      schemaProperty('/admin/graphql', () => adminSchema),
      fuzzParameters(60),
    );
  });

  it('refuses broken, oversized and deeply nested requests with a coded 4xx, in bounded time', {
    timeout: fuzzTimeout(100, 200),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Path>('/graphql', '/admin/graphql'),
        unstructuredRequest,
        async (path, { body }) => {
          await sendAndCheck(
            path,
            path === '/graphql' ? fuzz.gateway.credentials.pat : fuzz.gateway.credentials.adminPat,
            body,
          );
        },
      ),
      fuzzParameters(100),
    );
  });

  it('never returns a credential key it was given, whatever else the upsert holds', {
    timeout: fuzzTimeout(80, 200),
  }, async () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{16}$/).map((tail) => `fuzzsecret${tail}`);
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            providerName: fc.oneof(
              fc.constantFrom(
                'openai',
                'anthropic',
                'gemini',
                'bedrock',
                'bedrock-mantle',
                'vertex',
                'openai-compatible',
              ),
              fc.string({ maxLength: 12 }),
            ),
            slug: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.string({ maxLength: 70 })),
            apiKey: fc.oneof(
              secret,
              secret.map((value) => ` ${value} `),
              secret.map((value) => `${value}${'x'.repeat(16_400)}`),
            ),
            awsAccessKeyId: secret,
            awsSecretAccessKey: secret,
            awsSessionToken: secret,
            gcpServiceAccountJson: secret.map((value) =>
              JSON.stringify({
                client_email: 'a@b.iam',
                private_key: value,
                token_uri: 'http://127.0.0.1:9/token',
              }),
            ),
            baseUrl: fc.oneof(fc.constant(`${fuzz.upstream.url}/v1`), fc.string({ maxLength: 30 })),
            workspaceId: fc.oneof(
              fc.constant(fuzz.gateway.credentials.workspaceId),
              fc.string({ maxLength: 10 }),
            ),
            dailyCapMicros: fc.oneof(
              fc.integer({ min: -5, max: 10 ** 9 }),
              fc.double({ noNaN: true, noDefaultInfinity: true }),
            ),
            awsRegion: fc.oneof(fc.constant('us-east-1'), fc.string({ maxLength: 12 })),
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        async (args, asVariables) => {
          const names = Object.keys(args);
          const types: Record<string, string> = { dailyCapMicros: 'Float' };
          const query = asVariables
            ? `mutation(${names.map((name) => `$${name}: ${types[name] ?? 'String'}`).join(', ') || '$unused: Int'}) { upsertProviderCredential(${names.map((name) => `${name}: $${name}`).join(', ')}) { slug keyHint ready status } }`
            : `mutation { upsertProviderCredential(${Object.entries(args)
                .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
                .join(', ')}) { slug keyHint ready status } }`;
          await sendAndCheck('/graphql', fuzz.gateway.credentials.pat, {
            query,
            variables: asVariables ? args : {},
          });
        },
      ),
      fuzzParameters(80),
    );
  });

  it('still answers a valid query after the fuzzing (nothing was left broken)', async () => {
    const answer = await sendAndCheck('/graphql', fuzz.gateway.credentials.pat, {
      query: '{ tenant { id } }',
    });
    expect(answer.body.data).toEqual({ tenant: { id: fuzz.gateway.credentials.tenantId } });
  });
});
