/**
 * `POST /provision/tenant` (specification 4.5, 2.7): a liable parent creates a child tenant with a
 * provisioning key. The child gets one workspace and a workspace API key; the answer carries
 * `tenantId`, `workspaceId`, `apiKey` and `topUpUrl`, once. The key works on the gateway when the
 * call returns.
 *
 * Retries: with an `Idempotency-Key` header the child's id is derived from the provisioning key
 * and that header, so a retry (even to another control-plane process, even concurrent) finds the
 * tenant the first call made instead of making a second. It answers 200 with the first result's
 * ids and no key (`apiKey: null`, `replayed: true`): a secret is returned once. The same key with a
 * different body is a 409.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashCredential } from '../auth/credential-hash.ts';
import {
  API_KEY_PREFIX,
  EPHEMERAL_TOKEN_PREFIX,
  PAT_PREFIX,
  PROVISIONING_KEY_PREFIX,
} from '../auth/credential-prefixes.ts';
import type { TenancySettings } from '../config/tenancy-settings.ts';
import type { Logger } from '../observability/logger.ts';
import { ResourceConflictError } from '../resources/resource-errors.ts';
import type { ProvisioningKeyRecord } from '../stores/records.ts';
import type { AbuseLimiter } from './abuse-limits.ts';
import { recordAudit } from './audit-record.ts';
import type { ControlPlaneServices } from './graphql/context.ts';
import { RestError, useRestErrors, validationFailure } from './rest-errors.ts';
import { awaitTenant, createTenant, FIRST_WORKSPACE, issueCredential } from './tenant-writes.ts';

const PROVISIONED_BY = 'gateway.service.io/provisioned-by';
const REQUEST_DIGEST = 'gateway.service.io/provisioning-request';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const REGION = /^[a-z0-9-]{1,63}$/;
const MAX_NAME_LENGTH = 200;
/** Prefixes of the credentials that are not provisioning keys: refused with 403, not 401. */
const OTHER_CREDENTIALS = [PAT_PREFIX, API_KEY_PREFIX, EPHEMERAL_TOKEN_PREFIX];

export interface ProvisioningDeps {
  services: ControlPlaneServices;
  settings: TenancySettings;
  limiter: AbuseLimiter;
  log: Logger;
}

interface ProvisionRequest {
  name: string;
  region?: string;
  billingMode: 'delegated';
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.toLowerCase().startsWith('bearer ')) return undefined;
  return header.slice(7).trim() || undefined;
}

/** The provisioning key's record, or a 401/403 that says what is wrong. */
function authenticate(services: ControlPlaneServices, credential: string | undefined): ProvisioningKeyRecord {
  if (credential === undefined) {
    throw new RestError(
      401,
      'UNAUTHENTICATED',
      'send Authorization: Bearer <provisioning key (tt_prov_...)>',
    );
  }
  if (OTHER_CREDENTIALS.some((prefix) => credential.startsWith(prefix))) {
    throw new RestError(
      403,
      'FORBIDDEN',
      'only a provisioning key (tt_prov_...) may provision tenants; PATs, workspace keys and tokens cannot',
    );
  }
  const record =
    credential.startsWith(PROVISIONING_KEY_PREFIX) && credential.length <= 512
      ? services.view.provisioningKeyByHash(hashCredential(credential))
      : undefined;
  if (record === undefined)
    throw new RestError(401, 'UNAUTHENTICATED', 'unknown or revoked provisioning key');
  const parent = services.view.tenant(record.tenantId);
  if (parent === undefined)
    throw new RestError(401, 'UNAUTHENTICATED', 'unknown or revoked provisioning key');
  if (services.view.isSuspended(parent.id)) {
    throw new RestError(403, 'FORBIDDEN', 'the tenant of this provisioning key is suspended');
  }
  if (parent.parentId !== undefined) {
    throw new RestError(403, 'FORBIDDEN', 'only a top-level tenant (a liable parent) may provision tenants');
  }
  return record;
}

function parseBody(body: unknown): ProvisionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationFailure(
      'the body must be a JSON object with name (and optional region, billingMode)',
      [],
    );
  }
  const { name, region, billingMode } = body as Record<string, unknown>;
  if (name === undefined || name === null) throw validationFailure('name is required', ['name']);
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw validationFailure(`name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`, [
      'name',
    ]);
  }
  if (region !== undefined && region !== null && (typeof region !== 'string' || !REGION.test(region))) {
    throw validationFailure('region must be a region name (1-63 of a-z, 0-9 and -)', ['region']);
  }
  if (billingMode === 'pooled') {
    throw validationFailure("billingMode 'pooled' is not supported (not implemented); use 'delegated'", [
      'billingMode',
    ]);
  }
  if (billingMode !== undefined && billingMode !== null && billingMode !== 'delegated') {
    throw validationFailure("billingMode must be 'delegated' (the default)", ['billingMode']);
  }
  return {
    name: name.trim(),
    ...(typeof region === 'string' ? { region } : {}),
    billingMode: 'delegated',
  };
}

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** Where the tenant's balance is topped up. */
function topUpUrl(settings: TenancySettings, request: FastifyRequest, tenantId: string): string {
  const origin = `${request.protocol}://${request.host}`;
  return settings.topUpUrlTemplate.replaceAll('{origin}', origin).replaceAll('{tenantId}', tenantId);
}

async function provision(deps: ProvisioningDeps, request: FastifyRequest) {
  const { services, settings, limiter } = deps;
  await limiter.check('provision-ip', request.ip, settings.provisionPerIp, 'client address');
  const key = authenticate(services, bearer(request));
  await limiter.check('provision-key', key.id, settings.provisionPerKey, 'provisioning key');
  const input = parseBody(request.body);
  const idempotencyHeader = request.headers['idempotency-key'];
  if (
    idempotencyHeader !== undefined &&
    (typeof idempotencyHeader !== 'string' || !IDEMPOTENCY_KEY.test(idempotencyHeader))
  ) {
    throw validationFailure('Idempotency-Key must be 1-255 printable ASCII characters', ['Idempotency-Key']);
  }
  const requestDigest = digest(input.name, input.region ?? '', input.billingMode);
  // Derived from the provisioning key's id and the header: a retry finds the same tenant.
  const tenantId =
    idempotencyHeader === undefined
      ? `t${randomBytes(10).toString('hex')}`
      : `t${digest(key.id, idempotencyHeader).slice(0, 20)}`;

  let created = true;
  try {
    await createTenant(services, {
      id: tenantId,
      annotations: { [PROVISIONED_BY]: key.id, [REQUEST_DIGEST]: requestDigest },
      spec: {
        displayName: input.name,
        parentRef: { name: key.tenantId },
        ...(input.region === undefined ? {} : { region: input.region }),
        billingMode: 'delegated',
        workspaces: [{ ...FIRST_WORKSPACE }],
      },
    });
  } catch (error) {
    if (!(error instanceof ResourceConflictError) || idempotencyHeader === undefined) throw error;
    created = false;
  }
  if (!created) {
    const existing = await services.resources.get('Tenant', tenantId);
    if (existing?.metadata.annotations?.[REQUEST_DIGEST] !== requestDigest) {
      throw new RestError(
        409,
        'CONFLICT',
        'this Idempotency-Key was used with a different request; use a new key for a new tenant',
      );
    }
    await awaitTenant(services, tenantId, () => true);
  }
  const workspaceId = FIRST_WORKSPACE.id;
  const hasKey = services.view.list('apiKey').some((record) => record.tenantId === tenantId);
  if (!created && hasKey) {
    return {
      status: 200,
      body: {
        tenantId,
        workspaceId,
        apiKey: null,
        topUpUrl: topUpUrl(settings, request, tenantId),
        replayed: true,
        message:
          'this Idempotency-Key already provisioned this tenant; its API key was returned once, by the first response (create another with createApiKey if it was lost)',
      },
    };
  }
  if (created && settings.provisionInitialBalanceMicros !== undefined) {
    await services.runtime.initBalance(tenantId, settings.provisionInitialBalanceMicros);
  }
  // A first call that stopped before its key (or a replay of one) makes the key now.
  const apiKey = await issueCredential(services, tenantId, 'api-key', {
    workspace: workspaceId,
    grants: 'chat:write,embed',
  });
  await recordAudit(services, key.tenantId, {
    actor: key.id,
    operation: 'provisionTenant',
    target: tenantId,
    outcome: 'success',
  });
  return {
    status: created ? 201 : 200,
    body: {
      tenantId,
      workspaceId,
      apiKeyId: apiKey.id,
      apiKey: apiKey.plaintext,
      topUpUrl: topUpUrl(settings, request, tenantId),
      ...(created ? {} : { replayed: true }),
    },
  };
}

/** The provisioning routes, with their own error envelope and body limit. */
export async function provisioningRoutes(app: FastifyInstance, deps: ProvisioningDeps): Promise<void> {
  useRestErrors(app, deps.log);
  app.post('/provision/tenant', { bodyLimit: deps.settings.restBodyLimitBytes }, async (request, reply) => {
    const { status, body } = await provision(deps, request);
    return reply.code(status).header('cache-control', 'no-store').send(body);
  });
  app.get<{ Params: { tenantId: string } }>('/billing/top-up/:tenantId', async (_request, reply) =>
    reply
      .type('text/plain; charset=utf-8')
      .send(
        'Balances are topped up by the platform (topUpBalance on /admin/graphql). ' +
          'Set PROVISION_TOP_UP_URL to point tenants at your own billing page.\n',
      ),
  );
}
