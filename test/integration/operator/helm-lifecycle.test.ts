/**
 * The chart's life on a real API server with the Helm binary the tooling ships (helm 4, which
 * applies server-side): `helm install`, the operator (in-process, with the token of the
 * ServiceAccount the chart made) reconciles the Tenants the chart created, then `helm upgrade`
 * with a changed value succeeds: the operator owns no field Helm sets on the objects they share
 * (the tenant namespaces). No kubelet runs here, so the chart's pods never start; the operator
 * runs in the test instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import {
  condition,
  type OperatorTestBed,
  operatorSuitesAvailable,
  startOperatorTestBed,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable() && helmAvailable();
const NAMESPACE = 'gateway-system';
const RELEASE = 'inference-gateway';
const CHART = `${REPO_ROOT}/charts/inference-gateway`;

interface ManagedField {
  manager: string;
  operation: string;
  fieldsV1?: { 'f:metadata'?: { 'f:labels'?: Record<string, unknown> } };
}

describe.runIf(available)('the chart through helm install, a reconcile and helm upgrade', () => {
  let bed: OperatorTestBed;
  let operator: OperatorHandle;

  const helm = (args: readonly string[]) =>
    run(
      requireHelmTools().helm,
      [...args, '--namespace', NAMESPACE, '--kubeconfig', bed.plane.kubeconfigPath],
      {
        timeoutMs: 120_000,
      },
    );
  const expectSuccess = (result: { code: number | null; stdout: string; stderr: string }, what: string) =>
    expect(result.code, `${what}: ${result.stderr}${result.stdout}`).toBe(0);

  /** A token of the ServiceAccount the chart created (TokenRequest API). */
  const serviceAccountToken = async (name: string) => {
    const response = await bed.plane.request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    const token = (response.body as { status?: { token?: string } }).status?.token;
    if (!token) throw new Error(`no token for ${name}: ${JSON.stringify(response.body)}`);
    return token;
  };

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    expectSuccess(
      await helm(['install', RELEASE, CHART, '--set', 'bootstrap.firstTenant.enabled=true']),
      'helm install',
    );
    // What an earlier operator did to the namespace it found: took Helm's label over by force.
    // This operator's first apply must hand it back (drop it from its own set of fields).
    const earlier = await bed.plane.request(
      'PATCH',
      '/api/v1/namespaces/tenant-platform?fieldManager=inference-gateway-operator&force=true',
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: 'tenant-platform',
          labels: {
            'app.kubernetes.io/managed-by': 'inference-gateway-operator',
            'gateway.service.io/tenant': 'platform',
          },
        },
      },
      'application/apply-patch+yaml',
    );
    expect(earlier.status).toBe(200);
    const account = `${RELEASE}-operator`;
    operator = await bed.startOperator({
      kubeconfigPath: await bed.plane.writeKubeconfig(await serviceAccountToken(account), account),
      leaseNamespace: NAMESPACE,
      leaseName: `${RELEASE}-operator`,
    });
  }, 180_000);
  afterAll(async () => {
    await bed?.close();
  });

  it('upgrades after the operator reconciled the tenants the chart created', async () => {
    for (const name of ['platform', 'first']) {
      await expect
        .poll(async () => condition(await bed.read('Tenant', name), 'Ready')?.status, { timeout: 15_000 })
        .toBe('True');
    }
    await operator.settled();

    const upgrade = await helm(['upgrade', RELEASE, CHART, '--reuse-values', '--set', 'operator.replicas=3']);
    expectSuccess(upgrade, 'helm upgrade');
    const deployment = await bed.plane.request(
      'GET',
      `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${RELEASE}-operator`,
    );
    expect((deployment.body as { spec: { replicas: number } }).spec.replicas).toBe(3);

    // Each namespace keeps Helm's labels and the operator's; the operator owns no label Helm sets.
    for (const name of ['platform', 'first']) {
      const namespace = await bed.read('Namespace', `tenant-${name}`);
      expect(namespace?.metadata.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'Helm',
        'gateway.service.io/tenant': name,
      });
      const managed =
        (namespace?.metadata as { managedFields?: ManagedField[] } | undefined)?.managedFields ?? [];
      const operatorLabels = managed
        .filter((entry) => entry.manager === 'inference-gateway-operator')
        .flatMap((entry) => Object.keys(entry.fieldsV1?.['f:metadata']?.['f:labels'] ?? {}));
      expect(operatorLabels, name).toEqual(['f:gateway.service.io/tenant']);
    }

    // A second reconcile round after the upgrade changes nothing Helm would trip over next time.
    await operator.settled();
    expectSuccess(
      await helm(['upgrade', RELEASE, CHART, '--reuse-values', '--set', 'operator.replicas=2']),
      'second helm upgrade',
    );
  });
});
