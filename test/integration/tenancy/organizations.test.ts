/**
 * POST /auth/org/create in standalone: anonymous organisation sign-up, its validation rules
 * (specification 4.5 and 7), the owner PAT it returns once, the switch, the abuse limits, and a
 * referral that never reaches a log line, an error message or a metric.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceValidationError } from '../../../src/resources/resource-errors.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

interface CreatedOrg {
  organization: {
    id: string;
    name: string;
    slug: string;
    referral: string | null;
    createdAt: string;
    ownerEmail: string;
    workspaces: { id: string; name: string }[];
  };
  pat: { id: string; token: string; permissions: string[] };
}

/** Referral values that must never be seen anywhere but the org record and the admin API. */
const SECRET_REFERRAL = 'campaign.zq7-unique_ref';
const BAD_REFERRAL = 'Bad Referral With Spaces zq8';
const LONG_REFERRAL = `zq9${'a'.repeat(70)}`;

const logLines: string[] = [];
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ LOG_LEVEL: 'trace', ORG_CREATE_RATE_PER_IP: 'off' }, undefined, {
    logLines,
  });
});
afterAll(async () => {
  await gateway?.stop();
});

const create = (body: unknown) => postJson(`${gateway.controlUrl}/auth/org/create`, body);

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string; fields?: string[] } }).error;
}

describe('POST /auth/org/create', () => {
  it('creates a top-level tenant with a workspace and returns the org record with an owner PAT, once', async () => {
    const response = await create({
      name: 'Zebra Labs',
      email: 'owner@zebra.example',
      referral: `  ${SECRET_REFERRAL}  `,
      plan: 'ignored',
      isAdmin: true,
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as CreatedOrg;
    expect(created.organization).toMatchObject({
      id: 'zebra-labs',
      name: 'Zebra Labs',
      slug: 'zebra-labs',
      referral: SECRET_REFERRAL,
      ownerEmail: 'owner@zebra.example',
      workspaces: [{ id: 'default', name: 'Default workspace' }],
    });
    expect(Date.parse(created.organization.createdAt)).not.toBeNaN();
    expect(created.pat.token).toMatch(/^tt_pat_/);
    // The PAT works on /graphql at once, and is no platform admin.
    const tenant = await graphql<{ tenant: { id: string; parentId: string | null } }>(
      gateway.controlUrl,
      created.pat.token,
      '{ tenant { id parentId } }',
    );
    expect(tenant.data?.tenant).toEqual({ id: 'zebra-labs', parentId: null });
    const admin = await graphql(
      gateway.controlUrl,
      created.pat.token,
      '{ tenantTree { id } }',
      {},
      '/admin/graphql',
    );
    expect(admin.status).toBe(403);
    // It starts prepaid with nothing: the platform's keys wait for a top-up.
    const balance = await graphql<{ balance: { mode: string; remainingMicros: number } }>(
      gateway.controlUrl,
      created.pat.token,
      '{ balance { mode remainingMicros } }',
    );
    expect(balance.data?.balance).toEqual({ mode: 'prepaid', remainingMicros: 0 });
    // Stored hashed: the token is nowhere in the resources.
    expect(JSON.stringify(await gateway.running.resources.list('Secret'))).not.toContain(created.pat.token);
  });

  it.each([
    ['an absent referral', {}, null],
    ['an empty referral', { referral: '' }, null],
    ['a blank referral', { referral: '   ' }, null],
    ['a referral of 64 characters', { referral: 'r'.repeat(64) }, 'r'.repeat(64)],
  ])('stores %s as given by the rules', async (_name, extra, expected) => {
    const response = await create({ name: 'Referral Check', email: 'a@b.example', ...extra });
    expect(response.status).toBe(201);
    expect(((await response.json()) as CreatedOrg).organization.referral).toBe(expected);
  });

  it.each([
    ['missing name and email', {}, ['name', 'email'], 'name and email are required'],
    ['a missing email', { name: 'X' }, ['email'], 'email is required'],
    ['a missing name', { email: 'a@b.example' }, ['name'], 'name is required'],
    ['an invalid email', { name: 'X', email: 'not-an-address' }, ['email'], 'email must be'],
    [
      'a referral with bad characters',
      { name: 'X', email: 'a@b.example', referral: BAD_REFERRAL },
      ['referral'],
      'referral must be',
    ],
    [
      'a referral over 64 characters',
      { name: 'X', email: 'a@b.example', referral: LONG_REFERRAL },
      ['referral'],
      'referral must be',
    ],
    [
      'a referral that is not a string',
      { name: 'X', email: 'a@b.example', referral: 7 },
      ['referral'],
      'referral must be',
    ],
    ['a bad slug', { name: 'X', email: 'a@b.example', slug: 'Not A Slug' }, ['slug'], 'slug must be'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the fields', async (_name, body, fields, message) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.fields).toEqual(fields);
    expect(error.message).toContain(message);
    // The message names the rule, never the value.
    expect(error.message).not.toContain('zq');
  });

  it('takes a slug asked for, refuses a taken one with 409, and derives a free one from the name', async () => {
    const first = await create({ name: 'Slugged', email: 'a@b.example', slug: 'my-org' });
    expect(first.status).toBe(201);
    expect(((await first.json()) as CreatedOrg).organization.slug).toBe('my-org');
    const taken = await create({ name: 'Other', email: 'a@b.example', slug: 'my-org' });
    expect(taken.status).toBe(409);
    expect((await errorOf(taken)).code).toBe('CONFLICT');
    const derived = await create({ name: 'My Org', email: 'a@b.example' });
    expect(derived.status).toBe(201);
    expect(((await derived.json()) as CreatedOrg).organization.slug).toMatch(/^my-org-[0-9a-f]{6}$/);
  });

  it('sets the referral once: the Tenant refuses a change of it', async () => {
    const created = (await (
      await create({ name: 'Fixed Ref', email: 'a@b.example', referral: 'first.ref' })
    ).json()) as CreatedOrg;
    const tenant = await gateway.running.resources.get('Tenant', created.organization.id);
    await expect(
      gateway.running.resources.apply({ ...tenant!, spec: { ...tenant!.spec, referral: 'second.ref' } }),
    ).rejects.toBeInstanceOf(ResourceValidationError);
    const { referral: _dropped, ...withoutReferral } = tenant!.spec;
    await expect(gateway.running.resources.apply({ ...tenant!, spec: withoutReferral })).rejects.toThrow(
      'set once, at creation',
    );
  });

  it('answers malformed JSON with 400 and an oversized body with 413', async () => {
    expect((await create('{"name":')).status).toBe(400);
    const huge = await create({ name: 'Big', email: 'a@b.example', note: 'n'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('never writes the referral to a log line, an error message or a metric label', async () => {
    // Everything above ran at LOG_LEVEL=trace, valid and invalid referrals alike; the admin API
    // returns the referral, which must not leave a trace either.
    const admin = await graphql<{ organizations: { referral: string | null }[] }>(
      gateway.controlUrl,
      gateway.credentials.adminPat,
      '{ organizations { slug referral } }',
      {},
      '/admin/graphql',
    );
    expect(admin.data?.organizations.map((org) => org.referral)).toContain(SECRET_REFERRAL);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const seen = [...logLines, metrics].join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const value of [SECRET_REFERRAL, BAD_REFERRAL, LONG_REFERRAL, 'zq7', 'zq8', 'zq9']) {
      expect(seen).not.toContain(value);
    }
  });
});

describe('POST /auth/org/create switched off, and its abuse limit', () => {
  it('answers 404 with AUTH_ORG_CREATE=off', async () => {
    const off = await startTestGateway({ AUTH_ORG_CREATE: 'off' });
    try {
      const response = await postJson(`${off.controlUrl}/auth/org/create`, {
        name: 'X',
        email: 'a@b.example',
      });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).message).toContain('switched off');
    } finally {
      await off.stop();
    }
  });

  it('answers 429 with Retry-After past the per-address rate', async () => {
    const limited = await startTestGateway({ ORG_CREATE_RATE_PER_IP: '2/h' });
    try {
      const call = () =>
        postJson(`${limited.controlUrl}/auth/org/create`, { name: 'Rate', email: 'a@b.example' });
      expect((await call()).status).toBe(201);
      expect((await call()).status).toBe(201);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});
