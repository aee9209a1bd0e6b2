/**
 * `POST /auth/org/create` (specification 4.5, 7): anonymous sign-up of an organisation: a
 * top-level Tenant with one workspace, and its first owner PAT, returned once. On by default;
 * AUTH_ORG_CREATE=off switches it off (404).
 *
 * The referral is set once here and never changed (the Tenant resource refuses a change). It is
 * never logged, never in an error message and never a metric label: the messages below name the
 * rule, not the value, and the route's failures are logged without their messages.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PAT_PERMISSIONS } from '../auth/permissions.ts';
import type { TenancySettings } from '../config/tenancy-settings.ts';
import type { Logger } from '../observability/logger.ts';
import { ResourceConflictError } from '../resources/resource-errors.ts';
import {
  EMAIL_PATTERN,
  MAX_TENANT_NAME,
  REFERRAL_PATTERN,
  TENANT_SLUG_PATTERN,
} from '../resources/validate.ts';
import type { TenantRecord } from '../stores/records.ts';
import type { AbuseLimiter } from './abuse-limits.ts';
import { recordAudit } from './audit-record.ts';
import type { ControlPlaneServices } from './graphql/context.ts';
import { RestError, useRestErrors, validationFailure } from './rest-errors.ts';
import { createTenant, FIRST_WORKSPACE, issueCredential } from './tenant-writes.ts';

export interface OrganizationDeps {
  services: ControlPlaneServices;
  settings: TenancySettings;
  limiter: AbuseLimiter;
  log: Logger;
}

interface OrgRequest {
  name: string;
  email: string;
  slug: string | undefined;
  referral: string | null;
}

const MAX_NAME_LENGTH = 200;
const MAX_EMAIL_LENGTH = 254;
/** Tries at a free slug when none was asked for (a random suffix each). */
const SLUG_ATTEMPTS = 5;

/** The body's fields, each checked; missing required ones are named together. */
function parseBody(body: unknown): OrgRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationFailure('the body must be a JSON object with name and email', ['name', 'email']);
  }
  const fields = body as Record<string, unknown>;
  const missing = (['name', 'email'] as const).filter(
    (field) => fields[field] === undefined || fields[field] === null || fields[field] === '',
  );
  if (missing.length > 0) {
    throw validationFailure(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required`,
      missing,
    );
  }
  const { name, email, slug, referral } = fields;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw validationFailure(`name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`, [
      'name',
    ]);
  }
  if (typeof email !== 'string' || email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email.trim())) {
    throw validationFailure('email must be an e-mail address', ['email']);
  }
  if (slug !== undefined && slug !== null && (typeof slug !== 'string' || !isSlug(slug))) {
    throw validationFailure(
      `slug must be 1-${MAX_TENANT_NAME} of a-z, 0-9 and -, starting and ending with a letter or digit`,
      ['slug'],
    );
  }
  return {
    name: name.trim(),
    email: email.trim(),
    slug: typeof slug === 'string' ? slug : undefined,
    referral: parseReferral(referral),
  };
}

/** Trimmed; absent or empty: null; else the charset and length of specification 4.5 (the value is never echoed). */
export function parseReferral(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw validationFailure('referral must be a string', ['referral']);
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (!REFERRAL_PATTERN.test(trimmed)) {
    throw validationFailure('referral must be at most 64 of a-z, 0-9, ., _ and -', ['referral']);
  }
  return trimmed;
}

function isSlug(value: string): boolean {
  return value.length <= MAX_TENANT_NAME && TENANT_SLUG_PATTERN.test(value);
}

/** A slug from the organisation's name: lowercase letters and digits, words joined by `-`. */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_TENANT_NAME - 7)
    .replace(/-+$/, '');
  return base === '' ? 'org' : base;
}

async function createOrganization(deps: OrganizationDeps, request: FastifyRequest) {
  const { services, settings, limiter } = deps;
  if (!settings.orgCreateEnabled) {
    throw new RestError(404, 'NOT_FOUND', 'organisation creation is switched off on this deployment');
  }
  await limiter.check('org-create-ip', request.ip, settings.orgCreatePerIp, 'client address');
  const input = parseBody(request.body);
  const spec = {
    displayName: input.name,
    contactEmail: input.email,
    billingMode: 'delegated' as const,
    ...(input.referral === null ? {} : { referral: input.referral }),
    workspaces: [{ ...FIRST_WORKSPACE }],
  };

  let tenant: TenantRecord | undefined;
  const base = input.slug ?? slugFromName(input.name);
  for (let attempt = 0; tenant === undefined; attempt += 1) {
    // An asked-for slug is that slug or nothing; a derived one gets a suffix when taken.
    const slug = attempt === 0 ? base : `${base}-${randomBytes(3).toString('hex')}`;
    try {
      tenant = await createTenant(services, { id: slug, spec });
    } catch (error) {
      if (!(error instanceof ResourceConflictError)) throw error;
      if (input.slug !== undefined) {
        throw new RestError(409, 'CONFLICT', 'this slug is taken; choose another', { fields: ['slug'] });
      }
      if (attempt + 1 >= SLUG_ATTEMPTS) throw error;
    }
  }
  await services.runtime.initBalance(tenant.id, settings.orgInitialBalanceMicros);
  const pat = await issueCredential(services, tenant.id, 'pat', {
    name: 'owner',
    permissions: PAT_PERMISSIONS.join(','),
    admin: 'false',
  });
  await recordAudit(services, tenant.id, {
    actor: 'anonymous',
    operation: 'createOrganization',
    target: tenant.id,
    outcome: 'success',
  });
  return {
    organization: {
      id: tenant.id,
      name: tenant.displayName,
      slug: tenant.slug ?? tenant.id,
      referral: input.referral,
      createdAt: tenant.createdAt ?? new Date().toISOString(),
      ownerEmail: input.email,
      workspaces: tenant.workspaces,
    },
    pat: { id: pat.id, token: pat.plaintext, permissions: [...PAT_PERMISSIONS] },
  };
}

export async function organizationRoutes(app: FastifyInstance, deps: OrganizationDeps): Promise<void> {
  useRestErrors(app, deps.log);
  app.post('/auth/org/create', { bodyLimit: deps.settings.restBodyLimitBytes }, async (request, reply) =>
    reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(await createOrganization(deps, request)),
  );
}
