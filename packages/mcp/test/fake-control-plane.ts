/**
 * A fake control plane behind a `fetch`, for AdminClient and PlatformAdminClient in unit tests: it
 * records every call (GraphQL operation name and variables, or REST path and body, with the
 * headers) and answers each operation with a typical record, or with what a test put in its place.
 */
import type { FetchLike } from '@inference-gateway/admin';

export interface RecordedCall {
  /** The GraphQL operation name (`UpsertProviderCredential`), or `POST /auth/org/create`. */
  operation: string;
  path: string;
  /** GraphQL variables, or the REST body. */
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

/** What an operation answers: GraphQL `data`'s root field value, or a whole HTTP answer. */
export type Answer =
  | { value: unknown }
  | { graphqlErrors: { message: string; extensions?: { code: string } }[] }
  | { status: number; json: unknown }
  | { throws: unknown };

export type Responder = Answer | ((call: RecordedCall) => Answer);

const balance = {
  tenantId: 'default',
  mode: 'prepaid',
  remainingMicros: 7_500_000,
  spentMicros: 2_500_000,
  currency: 'USD',
};
const tenantFields = {
  id: 'default',
  slug: 'default',
  name: 'Default',
  parentId: null,
  region: null,
  billingMode: 'delegated',
  suspended: false,
  createdAt: '2025-01-01T00:00:00.000Z',
  workspaces: [{ id: 'default', name: 'Default' }],
};
const connection = {
  id: 'default/my-openai',
  slug: 'my-openai',
  label: 'my-openai',
  kind: 'openai',
  provider: 'openai',
  keyHint: 'sk-…wxyz',
  workspaceId: null,
  baseUrl: null,
  awsRegion: null,
  vertexProject: null,
  vertexRegion: null,
  defaultModel: null,
  dailyCapMicros: 2_500_000,
  spentTodayMicros: 0,
  createdAt: '2025-01-01T00:00:00.000Z',
  ready: true,
  status: 'Ready',
};
const policy = {
  name: 'docs',
  workspaceId: 'default',
  ttlSeconds: 600,
  swrSeconds: 0,
  maxTtlSeconds: 86_400,
  defaultTags: [],
  semantic: false,
};
const route = {
  model: 'chat-default',
  workspaceId: null,
  strategy: 'weighted',
  targets: [
    { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
    { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
  ],
  retry: {
    maxAttempts: 3,
    on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
    backoffMs: 100,
    maxBackoffMs: 2000,
  },
  firstByteTimeoutMs: 30_000,
  circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
  shared: false,
};
const organization = {
  id: 'acme-labs',
  name: 'Acme Labs',
  slug: 'acme-labs',
  referral: 'partner.x',
  createdAt: '2025-01-01T00:00:00.000Z',
  parentId: null,
  childCount: 0,
  region: null,
  suspended: false,
  balanceMicros: 20_000_000,
  workspaceCount: 1,
  balance: { ...balance, tenantId: 'acme-labs', remainingMicros: 20_000_000 },
};

/** A typical answer of every operation (GraphQL root field values, REST bodies). */
export const TYPICAL: Record<string, Answer> = {
  Tenant: { value: { ...tenantFields, children: [] } },
  Workspaces: { value: [{ id: 'default', name: 'Default' }] },
  CreateWorkspace: { value: { id: 'research', name: 'Research' } },
  Balance: { value: balance },
  MintEphemeralToken: {
    value: {
      token: 'tt_ev_minted.token',
      jti: 'jti_1',
      expiresAt: '2025-01-01T00:10:00.000Z',
      scopes: ['chat'],
    },
  },
  RevokeEphemeralToken: { value: true },
  RevokeEphemeralTokensForKey: { value: true },
  ApiKeys: {
    value: [
      {
        id: 'key_1',
        workspaceId: 'default',
        grants: ['chat:write'],
        keyHint: 'tt_sk_…abcd',
        createdAt: '2025-01-01',
      },
    ],
  },
  CreateApiKey: {
    value: { id: 'key_2', workspaceId: 'default', grants: ['chat:write', 'embed'], key: 'tt_sk_created' },
  },
  RevokeApiKey: { value: true },
  CachePolicies: { value: [policy] },
  UpsertCachePolicy: { value: policy },
  DeleteCachePolicy: { value: true },
  ModelRoutes: { value: [route] },
  UpsertModelRoute: { value: route },
  DeleteModelRoute: { value: true },
  RevalidateCacheTags: { value: { invalidated: 2 } },
  PurgeGatewayCache: { value: { purged: true, generation: 3 } },
  ProviderCredentials: { value: [connection] },
  ProviderAvailability: {
    value: [
      { provider: 'openai', kind: 'openai', platform: true, connectionSlugs: ['my-openai'], available: true },
    ],
  },
  UpsertProviderCredential: { value: connection },
  TestProviderCredential: { value: { ok: true, status: 200, message: 'ok', latencyMs: 12 } },
  RevokeProviderCredential: { value: true },
  AdminOrganizations: { value: [organization] },
  AdminOrganization: { value: organization },
  AdminSuspendTenant: { value: { ...organization, suspended: true } },
  AdminResumeTenant: { value: organization },
  AdminTopUpBalance: { value: organization.balance },
  'POST /auth/org/create': {
    status: 201,
    json: {
      organization: {
        id: 'acme-labs',
        name: 'Acme Labs',
        slug: 'acme-labs',
        referral: 'partner.x',
        createdAt: '2025-01-01T00:00:00.000Z',
        ownerEmail: 'owner@acme.example',
        workspaces: [{ id: 'default', name: 'Default' }],
      },
      pat: { id: 'pat_owner', token: 'tt_pat_owner-new', permissions: ['tokens:mint'] },
    },
  },
  'POST /provision/tenant': {
    status: 201,
    json: {
      tenantId: 't_child',
      workspaceId: 'default',
      apiKeyId: 'key_child',
      apiKey: 'tt_sk_child-new',
      topUpUrl: 'https://billing.example/t_child',
      replayed: false,
    },
  },
};

export interface FakeControlPlane {
  fetch: FetchLike;
  calls: RecordedCall[];
  /** The last call of an operation. */
  last(operation: string): RecordedCall;
  /** Answers an operation differently from now on. */
  answer(operation: string, responder: Responder): FakeControlPlane;
}

export function fakeControlPlane(): FakeControlPlane {
  const calls: RecordedCall[] = [];
  const responders = new Map<string, Responder>(Object.entries(TYPICAL));
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fake: FakeControlPlane = {
    calls,
    last(operation) {
      const call = calls.findLast((entry) => entry.operation === operation);
      if (call === undefined) throw new Error(`no ${operation} call was made`);
      return call;
    },
    answer(operation, responder) {
      responders.set(operation, responder);
      return fake;
    },
    fetch: async (url, init) => {
      const path = new URL(url).pathname;
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      const graphql = path.endsWith('graphql');
      const call: RecordedCall = {
        operation: graphql ? String(body.operationName) : `POST ${path}`,
        path,
        variables: graphql ? ((body.variables as Record<string, unknown>) ?? {}) : body,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
      };
      calls.push(call);
      const responder = responders.get(call.operation);
      if (responder === undefined) throw new Error(`the fake has no answer for ${call.operation}`);
      const answer = typeof responder === 'function' ? responder(call) : responder;
      if ('throws' in answer) throw answer.throws;
      if ('status' in answer) return json(answer.status, answer.json);
      if ('graphqlErrors' in answer) return json(200, { data: null, errors: answer.graphqlErrors });
      const rootField = rootFieldOf(String(body.query));
      return json(200, { data: { [rootField]: answer.value } });
    },
  };
  return fake;
}

/** The root field of a one-field GraphQL document (`mutation X(...) { rootField(...) {...} }`). */
function rootFieldOf(query: string): string {
  const match = /^\s*(\w+)/.exec(query.slice(query.indexOf('{') + 1));
  if (match?.[1] === undefined) throw new Error(`cannot find the root field of ${query.slice(0, 80)}`);
  return match[1];
}
