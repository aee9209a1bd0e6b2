/**
 * The control plane's /metrics and its answers to paths it does not serve: requests, latency and
 * errors by endpoint and GraphQL operation, with labels only from fixed sets (never an operation
 * name, alias or path the caller chose), and 404s in the project's envelope rather than fastify's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlaneMetrics } from '../../../src/observability/control-plane-metrics.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.stop();
});

const graphql = (path: string, body: Record<string, unknown>, credential: string) =>
  postJson(`${gateway.controlUrl}${path}`, body, credential);

const scrape = async () => {
  const response = await fetch(`${gateway.controlUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

/** The value of one series (labels in the order the registry writes them), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const rendered = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${rendered}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Every value a label takes in a metric's series. */
function labelValues(text: string, name: string, label: string): Set<string> {
  const pattern = new RegExp(`^${name}\\{[^}]*\\b${label}="([^"]*)"`, 'gm');
  return new Set([...text.matchAll(pattern)].map(([, value]) => value as string));
}

describe('paths the control plane does not serve', () => {
  it('answers 404 in the envelope, with the request id, never repeating the path', async () => {
    const response = await fetch(`${gateway.controlUrl}/no-such-thing-7f3a?x=1`, {
      headers: { 'x-request-id': 'cp-404-1' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('x-request-id')).toBe('cp-404-1');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('POST /graphql') },
      request_id: 'cp-404-1',
    });
    expect(JSON.stringify(body)).not.toContain('no-such-thing-7f3a');
    const wrongMethod = await fetch(`${gateway.controlUrl}/graphql`);
    expect(wrongMethod.status).toBe(404);
    expect(await wrongMethod.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('answers a malformed URL in the envelope too', async () => {
    const response = await fetch(`${gateway.controlUrl}/graphql%zz`, { method: 'POST' });
    expect(response.status).toBe(400);
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^req_/);
    expect(await response.json()).toEqual({
      error: { code: 'BAD_REQUEST', message: 'the URL path is not valid' },
      request_id: id,
    });
  });
});

describe('the control plane’s /metrics', () => {
  it('counts requests by route, operation and status class, errors by code, and times them', async () => {
    const { pat, adminPat } = gateway.credentials;
    const before = await scrape();
    await graphql(
      '/graphql',
      { query: 'query CallerChosenName { mine: cachePolicies { name } }', operationName: 'CallerChosenName' },
      pat,
    );
    await graphql('/graphql', { query: '{ cachePolicies { name } auditLog { operation } }' }, pat);
    const mutation = await graphql(
      '/graphql',
      { query: 'mutation { deleteCachePolicy(name: "absent-policy") }' },
      pat,
    );
    // A resolver's refusal: 200 with the error, as GraphQL has it.
    expect(mutation.status).toBe(200);
    expect(
      (await graphql('/graphql', { query: '{ cachePolicies { name } }' }, 'tt_pat_unknown')).status,
    ).toBe(401);
    expect((await graphql('/graphql', { query: '{ cachePolicies ' }, pat)).status).toBe(400);
    expect((await graphql('/admin/graphql', { query: '{ tenantTree { id } }' }, adminPat)).status).toBe(200);
    expect((await postJson(`${gateway.controlUrl}/provision/tenant`, { name: 'x' })).status).toBe(401);
    for (const path of ['/unknown-a', '/unknown-b', '/graphql/deeper'])
      expect((await fetch(`${gateway.controlUrl}${path}`)).status).toBe(404);
    await (await fetch(`${gateway.controlUrl}/healthz`)).text();

    const after = await scrape();
    const counted = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    const requests = 'gateway_controlplane_requests_total';
    const graphqlCall = (operation_type: string, operation: string, status: string) => ({
      route: '/graphql',
      operation_type,
      operation,
      status,
    });
    expect(counted(requests, graphqlCall('query', 'cachePolicies', '2xx'))).toBe(1);
    expect(counted(requests, graphqlCall('query', 'multiple', '2xx'))).toBe(1);
    expect(counted(requests, graphqlCall('mutation', 'deleteCachePolicy', '2xx'))).toBe(1);
    // Refused before a valid document: the operation is unknown.
    expect(counted(requests, graphqlCall('unknown', 'other', '4xx'))).toBe(2);
    const admin = {
      route: '/admin/graphql',
      operation_type: 'query',
      operation: 'tenantTree',
      status: '2xx',
    };
    expect(counted(requests, admin)).toBe(1);
    const rest = { operation_type: 'none', operation: 'none', status: '4xx' };
    expect(counted(requests, { route: '/provision/tenant', ...rest })).toBe(1);
    expect(counted(requests, { route: 'other', ...rest })).toBe(3);

    const errors = 'gateway_controlplane_errors_total';
    const error = (route: string, operation_type: string, operation: string, code: string) => ({
      route,
      operation_type,
      operation,
      code,
    });
    expect(counted(errors, error('/graphql', 'mutation', 'deleteCachePolicy', 'NOT_FOUND'))).toBe(1);
    expect(counted(errors, error('/graphql', 'unknown', 'other', 'UNAUTHENTICATED'))).toBe(1);
    expect(counted(errors, error('/graphql', 'unknown', 'other', 'GRAPHQL_PARSE_FAILED'))).toBe(1);
    expect(counted(errors, error('/provision/tenant', 'none', 'none', 'UNAUTHENTICATED'))).toBe(1);
    expect(counted(errors, error('other', 'none', 'none', 'NOT_FOUND'))).toBe(3);

    const timed = { route: '/graphql', operation_type: 'query', operation: 'cachePolicies' };
    expect(counted('gateway_controlplane_request_duration_seconds_count', timed)).toBe(1);

    // Bounded labels: the endpoints and `other`, the schemas' field names; nothing the caller wrote.
    expect(labelValues(after, requests, 'route')).toEqual(
      new Set(['/graphql', '/admin/graphql', '/provision/tenant', 'other']),
    );
    for (const chosen of ['CallerChosenName', 'mine', 'absent-policy', 'unknown-a', 'deeper', 'healthz'])
      expect(after).not.toContain(chosen);
  });

  it('has Node’s process metrics in the control-plane role, and leaves them to the gateway in standalone', async () => {
    const own = await createControlPlaneMetrics().registry.metrics();
    expect(own).toContain('gateway_controlplane_process_nodejs_version_info');
    expect(await scrape()).not.toContain('process_nodejs_version_info');
  });
});
