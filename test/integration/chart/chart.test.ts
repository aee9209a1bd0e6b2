/**
 * The Helm chart (charts/inference-gateway): `helm lint` and `helm template` pass with the default
 * values and with external Redis + existing Secrets; the rendered objects hold the security,
 * RBAC and wiring the design asks for; the chart's CRDs and manifests/install.yaml are up to date;
 * and the rendered output, the plain-YAML install and the examples are accepted by
 * `kubectl apply --dry-run=server` against the real test API server, whose RBAC then grants each
 * ServiceAccount what it needs and no more.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { hashCredential } from '../../../src/auth/credential-hash.ts';
import { PAT_PERMISSIONS } from '../../../src/auth/permissions.ts';
import { loadSettings } from '../../../src/config/settings.ts';
import { ensureSecrets } from '../../../src/main/ensure-secrets.ts';
import { redisConnectionOf } from '../../../src/main/open-stores.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { LocalResources } from '../../../src/resources/local-resources.ts';
import { helmAvailable, REPO_ROOT, type RunResult, requireHelmTools, run } from '../../helpers/helm.ts';
import {
  type KubeControlPlane,
  kubeAvailable,
  startKubeControlPlane,
} from '../../helpers/kube-control-plane.ts';

const CHART = join(REPO_ROOT, 'charts/inference-gateway');
const RELEASE = 'inference-gateway';
const NAMESPACE = 'inference-gateway';
const helmOk = helmAvailable();
const kubeOk = helmOk && kubeAvailable();

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: { secretRef?: { name: string; optional?: boolean } }[];
  ports?: { name: string; containerPort: number }[];
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
    privileged?: boolean;
  };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  lifecycle?: { preStop?: unknown };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface SecretProjection {
  name: string;
  optional?: boolean;
  items?: { key: string; path: string }[];
}
interface PodSpec {
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string }; fsGroup?: number };
  containers: Container[];
  volumes?: {
    name: string;
    projected?: { defaultMode?: number; sources: { secret?: SecretProjection }[] };
  }[];
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  automountServiceAccountToken?: boolean;
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    template?: { spec: PodSpec };
    ports?: { name: string; port: number; targetPort: string | number }[];
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    maxUnavailable?: number | string;
    endpoints?: { port: string; path: string }[];
  };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace: string }[];
}

function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null && typeof object === 'object');
}

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const object = objects.find((entry) => entry.kind === kind && entry.metadata.name === name);
  if (!object)
    throw new Error(
      `${kind}/${name} not rendered; have ${objects.map((o) => `${o.kind}/${o.metadata.name}`)}`,
    );
  return object;
}

function podSpec(object: K8sObject): PodSpec {
  const spec = object.spec?.template?.spec;
  if (!spec) throw new Error(`${object.kind}/${object.metadata.name} has no pod template`);
  return spec;
}

function envOf(container: Container): Map<string, EnvVar> {
  return new Map((container.env ?? []).map((entry) => [entry.name, entry]));
}

/**
 * The role's environment with its key files in place, as the kubelet would make them: the keys
 * volume's Secret projections written from the rendered Secrets into a temporary folder (a missing
 * key of an optional source is no file), and the mount path replaced by that folder.
 */
function projectKeys(
  pod: PodSpec,
  container: Container,
  secrets: Map<string, K8sObject>,
): Record<string, string> {
  const mount = container.volumeMounts?.find((entry) => entry.name === 'keys');
  const volume = pod.volumes?.find((entry) => entry.name === 'keys')?.projected;
  expect(mount?.readOnly).toBe(true);
  // 0440, readable through the pod's fsGroup.
  expect(volume?.defaultMode).toBe(0o440);
  expect(pod.securityContext?.fsGroup).toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'chart-keys-'));
  for (const { secret } of volume?.sources ?? []) {
    if (!secret) continue;
    for (const { key, path } of secret.items ?? []) {
      const value = secrets.get(secret.name)?.data?.[key];
      if (value === undefined && secret.optional) continue;
      if (value === undefined) throw new Error(`Secret ${secret.name} has no key ${key}`);
      writeFileSync(join(dir, path), Buffer.from(value, 'base64'));
    }
  }
  const env: Record<string, string> = {};
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = entry.value.replace(mount?.mountPath ?? '', dir);
  }
  return env;
}

/**
 * The Secrets the ensure-secrets Job makes, in the API server's shape (base64 `data`): its own code
 * (src/main/ensure-secrets.ts) run with the environment the chart renders for it, against an
 * in-memory resources store.
 */
async function secretsTheJobMakes(objects: K8sObject[]): Promise<K8sObject[]> {
  const { container } = ensureSecretsJob(objects);
  const env: Record<string, string> = { POD_NAMESPACE: NAMESPACE };
  for (const entry of container.env ?? []) if (entry.value !== undefined) env[entry.name] = entry.value;
  const resources = await LocalResources.open();
  try {
    await ensureSecrets(resources, NAMESPACE, loadSettings(env, PROVIDER_NAMES).ensureSecrets);
    const made = await resources.list('Secret');
    return made.map((secret) => ({ ...secret, data: { ...secret.data } }) as unknown as K8sObject);
  } finally {
    await resources.close();
  }
}

/** The ensure-secrets Job: its name carries a hash of its pod template. */
function ensureSecretsJob(objects: K8sObject[]): { job: K8sObject; pod: PodSpec; container: Container } {
  const jobs = objects.filter((object) => object.kind === 'Job');
  expect(jobs.map((job) => job.metadata.name)).toEqual([
    expect.stringMatching(new RegExp(`^${RELEASE}-keys-[0-9a-f]{8}$`)),
  ]);
  const job = jobs[0] as K8sObject;
  const pod = podSpec(job);
  return { job, pod, container: pod.containers[0] as Container };
}

function expectSuccess(result: RunResult, what: string): void {
  expect(result.code, `${what} failed:\n${result.stderr}\n${result.stdout.slice(0, 2000)}`).toBe(0);
}

/** Values for a production-like install: external Redis and every key from a Secret the user manages. */
const EXTERNAL_VALUES = [
  'redis.enabled=false',
  'redis.existingSecret=redis-credentials',
  'redis.existingSecretKey=url',
  'tokenSigningKey.existingSecret=gateway-keys',
  'encryptionKey.existingSecret=gateway-keys',
  'providerKeys.existingSecret=provider-keys',
];

function setArgs(values: readonly string[]): string[] {
  return values.flatMap((value) => ['--set', value]);
}

async function template(values: readonly string[] = [], extra: readonly string[] = []): Promise<RunResult> {
  const { helm } = requireHelmTools();
  return run(helm, ['template', RELEASE, CHART, '--namespace', NAMESPACE, ...setArgs(values), ...extra]);
}

async function render(values: readonly string[] = []): Promise<{ text: string; objects: K8sObject[] }> {
  const result = await template(values);
  expectSuccess(result, 'helm template');
  return { text: result.stdout, objects: parseObjects(result.stdout) };
}

const WORKLOADS = [
  { kind: 'Deployment', name: `${RELEASE}-gateway`, role: 'gateway', port: 8080 },
  { kind: 'Deployment', name: `${RELEASE}-controlplane`, role: 'controlplane', port: 8081 },
  { kind: 'Deployment', name: `${RELEASE}-operator`, role: 'operator', port: 8082 },
] as const;

describe.runIf(helmOk)('the Helm chart', () => {
  it('passes helm lint --strict with the default values and with external Redis and Secrets', async () => {
    const { helm } = requireHelmTools();
    expectSuccess(await run(helm, ['lint', '--strict', CHART]), 'helm lint (defaults)');
    expectSuccess(
      await run(helm, ['lint', '--strict', CHART, ...setArgs(EXTERNAL_VALUES)]),
      'helm lint (external)',
    );
  });

  it('renders the three roles, services, HPA, PDB, bundled Redis and the Job that makes the keys by default', async () => {
    const { objects } = await render();
    for (const { kind, name, role } of WORKLOADS) {
      const container = podSpec(find(objects, kind, name)).containers[0];
      expect(container?.args).toEqual([role]);
      expect(container?.image).toBe('inference-gateway:0.1.0');
    }
    expect(find(objects, 'Deployment', `${RELEASE}-operator`).spec?.replicas).toBe(2);
    // With the HPA on, the Deployment leaves replicas to it.
    expect(find(objects, 'Deployment', `${RELEASE}-gateway`).spec?.replicas).toBeUndefined();
    const hpa = find(objects, 'HorizontalPodAutoscaler', `${RELEASE}-gateway`);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: `${RELEASE}-gateway`,
    });
    expect(find(objects, 'PodDisruptionBudget', `${RELEASE}-gateway`).apiVersion).toBe('policy/v1');

    expect(find(objects, 'Service', `${RELEASE}-gateway`).spec?.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(find(objects, 'Service', `${RELEASE}-controlplane`).spec?.ports).toEqual([
      { name: 'http', port: 8081, targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(find(objects, 'StatefulSet', `${RELEASE}-redis`).spec?.replicas).toBe(1);
    expect(find(objects, 'Service', `${RELEASE}-redis`).spec?.ports?.[0]?.port).toBe(6379);
    // The bundled Redis has no password: only this release's pods may reach it.
    expect(find(objects, 'NetworkPolicy', `${RELEASE}-redis`).apiVersion).toBe('networking.k8s.io/v1');

    // No key is generated by the template: the Job creates them in the cluster, once.
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const env = envOf(ensureSecretsJob(objects).container);
    expect(env.get('ENSURE_ENCRYPTION_KEY_SECRET')?.value).toBe(`${RELEASE}-encryption`);
    expect(env.get('ENSURE_SIGNING_KEY_SECRET')?.value).toBe(`${RELEASE}-token-signing`);
  });

  it('renders the same bytes every time: nothing random, nothing read back from the cluster', async () => {
    for (const values of [
      [],
      ['bootstrap.firstTenant.enabled=true'],
      [
        'bootstrap.firstTenant.enabled=true',
        `encryptionKey.value=${'ab'.repeat(32)}`,
        'tokenSigningKey.value=signing-key-0123456789abcdef0123456789',
        'tokenSigningKey.verifyKeys=old:verify-key-0123456789abcdef0123456789',
      ],
    ]) {
      const first = await template(values);
      const second = await template(values);
      expectSuccess(first, 'helm template');
      expect(second.stdout, values.join(' ')).toBe(first.stdout);
    }
    const chart = join(CHART, 'templates');
    for (const file of readdirSync(chart)) {
      const text = readFileSync(join(chart, file), 'utf8');
      for (const word of ['randAlphaNum', 'randBytes', 'randAscii', 'uuidv4', 'lookup', 'now', 'genCA'])
        expect(text, `${file} uses ${word}`).not.toMatch(new RegExp(`\\b${word}\\b`));
    }
  });

  it('runs every pod non-root, read-only, without privilege escalation or capabilities, seccomp RuntimeDefault', async () => {
    for (const values of [[], EXTERNAL_VALUES]) {
      const { objects } = await render(values);
      const pods = objects.filter((object) => object.spec?.template?.spec);
      expect(pods.length).toBeGreaterThanOrEqual(3);
      for (const object of pods) {
        const spec = podSpec(object);
        const where = `${object.kind}/${object.metadata.name}`;
        expect(spec.securityContext?.runAsNonRoot, where).toBe(true);
        expect(spec.securityContext?.seccompProfile?.type, where).toBe('RuntimeDefault');
        for (const container of spec.containers) {
          expect(container.securityContext, `${where} ${container.name}`).toMatchObject({
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          });
          expect(container.securityContext?.capabilities?.add, where).toBeUndefined();
          expect(container.resources?.requests, where).toBeDefined();
          expect(container.resources?.limits?.memory, where).toBeDefined();
        }
      }
    }
  });

  it('probes /healthz for liveness and /readyz for readiness on each role', async () => {
    const { objects } = await render();
    for (const { kind, name, port } of WORKLOADS) {
      const container = podSpec(find(objects, kind, name)).containers[0] as Container;
      expect(container.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    }
  });

  it('drains in the process after SIGTERM for preStopSleep, within a matching terminationGracePeriodSeconds', async () => {
    const cases = [
      { values: [], drain: { gateway: 5, controlplane: 5 }, grace: { gateway: 30, controlplane: 30 } },
      {
        values: [
          'gateway.preStopSleep=12',
          'gateway.shutdownGraceSeconds=90',
          'controlPlane.preStopSleep=0',
          'controlPlane.shutdownGraceSeconds=20',
        ],
        drain: { gateway: 12, controlplane: 0 },
        grace: { gateway: 90, controlplane: 20 },
      },
    ];
    for (const { values, drain, grace } of cases) {
      const { objects } = await render(values);
      for (const role of ['gateway', 'controlplane'] as const) {
        const pod = podSpec(find(objects, 'Deployment', `${RELEASE}-${role}`));
        const container = pod.containers[0] as Container;
        // No preStop `sleep`: it would hold SIGTERM back (so /readyz would stay 200) and drain twice.
        expect(container.lifecycle?.preStop, role).toBeUndefined();
        // The two settings as the process reads them (the key files are another test's business).
        const env = envOf(container);
        const settings = loadSettings(
          {
            SHUTDOWN_DRAIN_DELAY_MS: env.get('SHUTDOWN_DRAIN_DELAY_MS')?.value,
            SHUTDOWN_GRACE_MS: env.get('SHUTDOWN_GRACE_MS')?.value,
          },
          PROVIDER_NAMES,
        );
        expect(settings.shutdownDrainDelayMs, role).toBe(drain[role] * 1000);
        expect(settings.shutdownGraceMs, role).toBe(grace[role] * 1000);
        // The process is gone by drain + grace; the kubelet waits for that and a margin.
        expect(pod.terminationGracePeriodSeconds, role).toBeGreaterThanOrEqual(drain[role] + grace[role] + 5);
      }
    }
    const negative = await template(['gateway.preStopSleep=-1']);
    expect(negative.code).not.toBe(0);
    expect(negative.stderr).toContain('preStopSleep');
  });

  it('gives the gateway no ServiceAccount token and no Kubernetes API access', async () => {
    const { objects } = await render();
    const gateway = podSpec(find(objects, 'Deployment', `${RELEASE}-gateway`));
    expect(gateway.automountServiceAccountToken).toBe(false);
    expect(gateway.serviceAccountName).toBe(`${RELEASE}-gateway`);
    expect(find(objects, 'ServiceAccount', `${RELEASE}-gateway`).automountServiceAccountToken).toBe(false);
    const bindings = objects.filter(
      (object) => object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding',
    );
    expect(bindings.length).toBeGreaterThan(0);
    for (const binding of bindings) {
      expect(binding.subjects?.map((subject) => subject.name)).not.toContain(`${RELEASE}-gateway`);
    }
    const redis = podSpec(find(objects, 'StatefulSet', `${RELEASE}-redis`));
    expect(redis.automountServiceAccountToken).toBe(false);
  });

  it('wires the settings of src/config/settings.ts into each role', async () => {
    const { objects } = await render();
    const env = (name: string) =>
      envOf(podSpec(find(objects, 'Deployment', name)).containers[0] as Container);
    const gateway = env(`${RELEASE}-gateway`);
    const controlPlane = env(`${RELEASE}-controlplane`);
    const operator = env(`${RELEASE}-operator`);
    for (const role of [gateway, controlPlane, operator]) {
      expect(role.get('HOST')?.value).toBe('0.0.0.0');
      expect(role.get('REDIS_URL')?.value).toBe(`redis://${RELEASE}-redis:6379`);
    }
    expect(gateway.get('GATEWAY_PORT')?.value).toBe('8080');
    expect(controlPlane.get('CONTROL_PORT')?.value).toBe('8081');
    expect(operator.get('OPERATOR_LEASE_NAME')?.value).toBe(`${RELEASE}-operator`);
    expect(operator.get('OPERATOR_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    expect(operator.get('POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(operator.get('OPERATOR_PORT')?.value).toBe('8082');
  });

  it('mounts the keys as read-only files, never as environment variables, and the settings read them', async () => {
    // Generated (the Secrets the Job's own code makes from its rendered environment) and given as values.
    const cases = [
      { values: ['tokenSigningKey.verifyKeys=old:verify-key-0123456789abcdef0123456789'], generated: true },
      {
        values: [
          `encryptionKey.value=${'cd'.repeat(32)}`,
          'tokenSigningKey.value=signing-key-0123456789abcdef0123456789',
          'tokenSigningKey.verifyKeys=old:verify-key-0123456789abcdef0123456789',
        ],
        generated: false,
      },
    ];
    for (const { values, generated } of cases) {
      const { objects } = await render(values);
      const secrets = new Map(
        objects.filter((object) => object.kind === 'Secret').map((object) => [object.metadata.name, object]),
      );
      if (generated) {
        for (const made of await secretsTheJobMakes(objects)) secrets.set(made.metadata.name, made);
      } else {
        // Rendered as given; the Job (here for the admin PAT) makes neither.
        const job = envOf(ensureSecretsJob(objects).container);
        expect(job.get('ENSURE_ENCRYPTION_KEY_SECRET')).toBeUndefined();
        expect(job.get('ENSURE_SIGNING_KEY_SECRET')).toBeUndefined();
      }
      const decoded = (name: string, key: string) =>
        Buffer.from(secrets.get(name)?.data?.[key] ?? '', 'base64').toString();
      // Generated: base64 of 32 bytes; given: the hex value.
      const encryptionKey = generated
        ? Buffer.from(decoded(`${RELEASE}-encryption`, 'encryption-key'), 'base64')
        : Buffer.from(decoded(`${RELEASE}-encryption`, 'encryption-key'), 'hex');
      expect(encryptionKey).toHaveLength(32);
      for (const { name, role } of WORKLOADS) {
        const pod = podSpec(find(objects, 'Deployment', name));
        const container = pod.containers[0] as Container;
        for (const variable of [
          'SERVICE_ENCRYPTION_KEY',
          'SERVICE_TOKEN_SIGNING_KEY',
          'SERVICE_TOKEN_VERIFY_KEYS',
        ]) {
          expect(envOf(container).get(variable), `${role} ${variable}`).toBeUndefined();
        }
        // What the kubelet would project (the Secrets, the volume's items) into a folder, and the
        // mount path in the role's environment pointed at that folder.
        const settings = loadSettings(projectKeys(pod, container, secrets), PROVIDER_NAMES);
        expect(settings.encryptionKey, role).toEqual(encryptionKey);
        const tokenKeys = settings.tokenSigningKeys.map((key) => key.id);
        // The operator never mints or verifies tokens.
        expect(tokenKeys, role).toEqual(role === 'operator' ? [] : ['k1', 'old']);
        if (role !== 'operator')
          expect(settings.tokenSigningKeys[0]?.secret).toBe(
            decoded(`${RELEASE}-token-signing`, 'signing-key'),
          );
      }
    }
  });

  it('creates platform provider keys from values, loaded as environment variables', async () => {
    const { objects } = await render(['providerKeys.values.OPENAI_API_KEY=sk-test-123']);
    const secret = find(objects, 'Secret', `${RELEASE}-provider-keys`);
    expect(Buffer.from(secret.data?.OPENAI_API_KEY ?? '', 'base64').toString()).toBe('sk-test-123');
    for (const name of [`${RELEASE}-gateway`, `${RELEASE}-controlplane`]) {
      const container = podSpec(find(objects, 'Deployment', name)).containers[0] as Container;
      expect(container.envFrom).toEqual([
        { secretRef: { name: `${RELEASE}-provider-keys`, optional: false } },
      ]);
    }
    const operator = podSpec(find(objects, 'Deployment', `${RELEASE}-operator`)).containers[0] as Container;
    expect(operator.envFrom).toBeUndefined();
  });

  it('uses external Redis and existing Secrets without creating any key Secret', async () => {
    const { objects } = await render([...EXTERNAL_VALUES, 'bootstrap.adminPat.enabled=false']);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    // Nothing to generate: no Job, and no ServiceAccount or Role for one.
    expect(objects.filter((object) => object.metadata.name.includes('-keys-'))).toEqual([]);
    expect(objects.filter((object) => object.metadata.name.endsWith('-ensure-secrets'))).toEqual([]);
    expect(objects.find((object) => object.kind === 'StatefulSet')).toBeUndefined();
    const gatewayPod = podSpec(find(objects, 'Deployment', `${RELEASE}-gateway`));
    const gateway = gatewayPod.containers[0] as Container;
    const env = envOf(gateway);
    expect(env.get('REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'redis-credentials', key: 'url' });
    const keys = gatewayPod.volumes?.find((volume) => volume.name === 'keys')?.projected;
    expect(keys?.sources.map((source) => source.secret)).toEqual([
      { name: 'gateway-keys', items: [{ key: 'encryption-key', path: 'encryption-key' }] },
      { name: 'gateway-keys', items: [{ key: 'signing-key', path: 'signing-key' }] },
      { name: 'gateway-keys', optional: true, items: [{ key: 'verify-keys', path: 'verify-keys' }] },
    ]);
    expect(gateway.envFrom).toEqual([{ secretRef: { name: 'provider-keys', optional: true } }]);

    const byUrl = await render(['redis.enabled=false', 'redis.url=rediss://:pw@redis.example:6380/0']);
    const urlSecret = find(byUrl.objects, 'Secret', `${RELEASE}-redis-url`);
    expect(Buffer.from(urlSecret.data?.['redis-url'] ?? '', 'base64').toString()).toBe(
      'rediss://:pw@redis.example:6380/0',
    );

    // A Redis Cluster: its seed nodes, without a URL or with one for the credentials.
    const cluster = await render(['redis.enabled=false', 'redis.clusterNodes={redis-0:6379,redis-1:6379}']);
    const clusterEnv = envOf(
      podSpec(find(cluster.objects, 'Deployment', `${RELEASE}-gateway`)).containers[0] as Container,
    );
    expect(clusterEnv.get('REDIS_CLUSTER_NODES')?.value).toBe('redis-0:6379,redis-1:6379');
    expect(clusterEnv.get('REDIS_URL')).toBeUndefined();
  });

  it('renders each Redis mode, and each role reads it as the settings of the stores', async () => {
    /**
     * A role's Redis settings as its process would read them: the rendered environment, Secret
     * references resolved from `secrets`, the CA's volume projected into a folder.
     */
    const redisOf = (
      objects: K8sObject[],
      deployment: string,
      secrets: Record<string, Record<string, string>>,
    ) => {
      const pod = podSpec(find(objects, 'Deployment', deployment));
      const container = pod.containers[0] as Container;
      const env: Record<string, string> = {};
      const caDir = mkdtempSync(join(tmpdir(), 'chart-redis-ca-'));
      const caMount = container.volumeMounts?.find((mount) => mount.name === 'redis-ca');
      const caVolume = pod.volumes?.find((volume) => volume.name === 'redis-ca') as
        | { secret?: { secretName: string; items: { key: string; path: string }[] } }
        | undefined;
      for (const { key, path } of caVolume?.secret?.items ?? [])
        writeFileSync(join(caDir, path), secrets[caVolume?.secret?.secretName ?? '']?.[key] ?? '');
      for (const entry of container.env ?? []) {
        if (!entry.name.startsWith('REDIS_')) continue;
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref) env[entry.name] = secrets[ref.name]?.[ref.key] ?? '';
        else if (entry.value !== undefined)
          env[entry.name] = caMount ? entry.value.replace(caMount.mountPath, caDir) : entry.value;
      }
      return redisConnectionOf(loadSettings(env, PROVIDER_NAMES));
    };
    const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

    // An external Redis over TLS with a private CA, its password from a Secret of its own.
    const external = await render([
      'redis.enabled=false',
      'redis.url=rediss://redis.example:6380/0',
      'redis.auth.existingSecret=redis-password',
      'redis.auth.existingSecretKey=password',
      'redis.tls.caSecret=redis-ca',
    ]);
    const urlSecret = find(external.objects, 'Secret', `${RELEASE}-redis-url`);
    const secrets = {
      [`${RELEASE}-redis-url`]: {
        'redis-url': Buffer.from(urlSecret.data?.['redis-url'] ?? '', 'base64').toString(),
      },
      'redis-password': { password: 'from its own Secret' },
      'redis-ca': { 'ca.crt': CA },
    };
    for (const { name } of WORKLOADS) {
      expect(redisOf(external.objects, name, secrets), name).toEqual({
        url: 'rediss://redis.example:6380/0',
        password: 'from its own Secret',
        tls: { ca: CA },
      });
    }
    expect(external.objects.find((object) => object.kind === 'StatefulSet')).toBeUndefined();

    // A Redis Cluster: its seed nodes.
    const cluster = await render(['redis.enabled=false', 'redis.clusterNodes={redis-0:6379,redis-1:6379}']);
    for (const { name } of WORKLOADS)
      expect(redisOf(cluster.objects, name, {}), name).toEqual({
        clusterNodes: ['redis-0:6379', 'redis-1:6379'],
      });

    // Sentinel: the sentinels, the master's name, their password and the data nodes' from Secrets.
    const sentinel = await render([
      'redis.enabled=false',
      'redis.sentinel.nodes={sentinel-0.sentinel:26379,sentinel-1.sentinel:26379,sentinel-2.sentinel:26379}',
      'redis.sentinel.masterName=gateway',
      'redis.sentinel.existingSecret=sentinel-auth',
      'redis.auth.existingSecret=redis-auth',
      'redis.tls.enabled=true',
    ]);
    const sentinelSecrets = {
      'sentinel-auth': { 'sentinel-password': 'sentinel password' },
      'redis-auth': { 'redis-password': 'data password' },
    };
    for (const { name } of WORKLOADS) {
      expect(redisOf(sentinel.objects, name, sentinelSecrets), name).toEqual({
        sentinel: {
          nodes: ['sentinel-0.sentinel:26379', 'sentinel-1.sentinel:26379', 'sentinel-2.sentinel:26379'],
          masterName: 'gateway',
          password: 'sentinel password',
        },
        password: 'data password',
        tls: { ca: undefined },
      });
    }
    // No password in any rendered object but the URL's own Secret.
    expect(sentinel.objects.filter((object) => object.kind === 'Secret')).toEqual([]);
  });

  it('makes the day-one credentials in the cluster: an admin PAT (hash for the operator, plaintext for kubectl) and a first tenant', async () => {
    const { objects } = await render(['bootstrap.firstTenant.enabled=true']);
    // The template renders the Tenants and their namespaces; no credential.
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    expect(find(objects, 'Tenant', 'platform').metadata.annotations?.['helm.sh/resource-policy']).toBe(
      'keep',
    );
    find(objects, 'Namespace', 'tenant-platform');
    find(objects, 'Tenant', 'first');
    find(objects, 'Namespace', 'tenant-first');

    // What the Job makes from the environment the chart gives it.
    const made = await secretsTheJobMakes(objects);
    const secret = (name: string, namespace: string) => {
      const found = made.find(
        (entry) => entry.metadata.name === name && entry.metadata.namespace === namespace,
      );
      if (!found) throw new Error(`the Job makes no Secret ${namespace}/${name}`);
      return found;
    };
    const decode = (object: K8sObject, key: string) =>
      Buffer.from(object.data?.[key] ?? '', 'base64').toString();
    const plain = secret(`${RELEASE}-admin-pat`, NAMESPACE);
    const token = decode(plain, 'token');
    expect(token).toMatch(/^tt_pat_[A-Za-z0-9_-]{43}$/);
    const hashed = secret('admin-pat', 'tenant-platform');
    expect(decode(hashed, 'hash')).toBe(hashCredential(token));
    expect(decode(hashed, 'id')).toBe(decode(plain, 'id'));
    expect(decode(hashed, 'admin')).toBe('true');
    expect(decode(hashed, 'permissions').split(',')).toEqual([...PAT_PERMISSIONS]);
    expect(JSON.stringify(hashed)).not.toContain(Buffer.from(token).toString('base64'));
    // Not labelled as the release's: a GitOps tool would prune what it took for its own.
    expect(JSON.stringify(made)).not.toContain('app.kubernetes.io/instance');

    const first = secret(`${RELEASE}-first-tenant`, NAMESPACE);
    const firstKey = secret('first-api-key', 'tenant-first');
    expect(decode(firstKey, 'hash')).toBe(hashCredential(decode(first, 'apiKey')));
    expect(decode(firstKey, 'workspace')).toBe('main');
    expect(decode(secret('first-pat', 'tenant-first'), 'hash')).toBe(hashCredential(decode(first, 'pat')));

    const { objects: none } = await render(['bootstrap.adminPat.enabled=false']);
    expect(none.find((object) => object.kind === 'Tenant')).toBeUndefined();
    const noneEnv = envOf(ensureSecretsJob(none).container);
    expect(noneEnv.get('ENSURE_ADMIN_PAT_SECRET')).toBeUndefined();
  });

  it('gives the ensure-secrets Job create on Secrets where it makes them, and reads of those it compares only', async () => {
    const { objects } = await render(['bootstrap.firstTenant.enabled=true']);
    const { pod } = ensureSecretsJob(objects);
    const account = `${RELEASE}-ensure-secrets`;
    expect(pod.serviceAccountName).toBe(account);
    const roles = objects.filter((object) => object.kind === 'Role' && object.metadata.name === account);
    const grants = Object.fromEntries(roles.map((role) => [role.metadata.namespace, role.rules]));
    const secretRules = (names: string[]) => [
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: names, verbs: ['get'] },
    ];
    expect(grants).toEqual({
      [NAMESPACE]: secretRules([`${RELEASE}-admin-pat`, `${RELEASE}-first-tenant`]),
      'tenant-platform': secretRules(['admin-pat']),
      'tenant-first': secretRules(['first-api-key', 'first-pat']),
    });
    for (const binding of objects.filter(
      (object) => object.kind === 'RoleBinding' && object.metadata.name === account,
    ))
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account, namespace: NAMESPACE }]);
    expect(
      objects.filter(
        (object) =>
          object.kind.startsWith('Cluster') && JSON.stringify(object.subjects ?? []).includes(account),
      ),
    ).toEqual([]);
  });

  it('prints in NOTES.txt the kubectl lines that read the day-one credentials', async () => {
    const { helm } = requireHelmTools();
    const result = await run(helm, [
      'install',
      RELEASE,
      CHART,
      '--namespace',
      NAMESPACE,
      '--dry-run=client',
      '--set',
      'bootstrap.firstTenant.enabled=true',
    ]);
    expectSuccess(result, 'helm install --dry-run');
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    expect(notes).toContain(
      `kubectl -n ${NAMESPACE} get secret ${RELEASE}-admin-pat -o jsonpath='{.data.token}' | base64 -d`,
    );
    expect(notes).toContain(`get secret ${RELEASE}-first-tenant -o jsonpath='{.data.apiKey}'`);
    expect(notes).toContain('kubectl wait --for=condition=Ready tenant/platform');
  });

  it("names in the README the chart's Lease and day-one Secrets", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const { objects } = await render(['bootstrap.firstTenant.enabled=true']);
    const operator = podSpec(find(objects, 'Deployment', `${RELEASE}-operator`)).containers[0] as Container;
    const lease = envOf(operator).get('OPERATOR_LEASE_NAME')?.value;
    expect(lease).toBe(`${RELEASE}-operator`);
    expect(readme).toContain(`kubectl -n ${NAMESPACE} get lease ${lease}`);
    const job = envOf(ensureSecretsJob(objects).container);
    for (const variable of ['ENSURE_ADMIN_PAT_SECRET', 'ENSURE_FIRST_TENANT_SECRET']) {
      const name = job.get(variable)?.value;
      expect(name).toMatch(new RegExp(`^${RELEASE}-`));
      expect(readme).toContain(`get secret ${name}`);
    }
  });

  it('refuses values that cannot work, with a clear message', async () => {
    const noRedis = await template(['redis.enabled=false']);
    expect(noRedis.code).not.toBe(0);
    expect(noRedis.stderr).toContain(
      'redis.enabled=false needs redis.url, redis.existingSecret, redis.clusterNodes or redis.sentinel.nodes',
    );
    const both = await template([
      'redis.enabled=false',
      'redis.clusterNodes={a:7000}',
      'redis.sentinel.nodes={s:26379}',
    ]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('a Redis Cluster or Sentinel, not both');
    const sameTenant = await template([
      'bootstrap.firstTenant.enabled=true',
      'bootstrap.firstTenant.name=platform',
    ]);
    expect(sameTenant.code).not.toBe(0);
    expect(sameTenant.stderr).toContain(
      'bootstrap.firstTenant.name must differ from bootstrap.adminPat.tenant',
    );
    const badKey = await template(['encryptionKey.value=too-short']);
    expect(badKey.code).not.toBe(0);
    expect(badKey.stderr).toContain('encryptionKey.value must be 32 bytes');
    const typo = await template(['gateway.replica=3']);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toContain("additional properties 'replica' not allowed");
  });

  it('renders NetworkPolicies for the three roles only on request, each admitting and reaching what is listed', async () => {
    const { objects: off } = await render();
    expect(
      off.filter((object) => object.kind === 'NetworkPolicy').map((object) => object.metadata.name),
    ).toEqual([`${RELEASE}-redis`]);

    interface Rule {
      ports?: { port: number | string; protocol: string }[];
      from?: unknown[];
      to?: unknown[];
    }
    interface Policy {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: Rule[];
      egress: Rule[];
    }
    const policies = (objects: K8sObject[]) =>
      Object.fromEntries(
        WORKLOADS.map(({ name, role }) => {
          const policy = find(objects, 'NetworkPolicy', name).spec as unknown as Policy;
          // It selects exactly the role's pods.
          const template = find(objects, 'Deployment', name).spec?.template as unknown as
            | { metadata: { labels: Record<string, string> } }
            | undefined;
          const labels = template?.metadata.labels;
          expect(labels).toMatchObject(policy.podSelector.matchLabels);
          expect(policy.podSelector.matchLabels['app.kubernetes.io/component']).toBe(role);
          expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
          return [role, policy];
        }),
      ) as Record<'gateway' | 'controlplane' | 'operator', Policy>;
    const http = [{ port: 'http', protocol: 'TCP' }];
    const tcp = (...ports: number[]) => ports.map((port) => ({ port, protocol: 'TCP' }));
    const dns = {
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ],
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ],
    };
    const monitoring = {
      ports: http,
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
    };

    // Defaults: clients from anywhere, Prometheus from `monitoring`; the bundled Redis by its labels;
    // public addresses on 443 for the upstreams; the API server for the two roles that call it.
    const defaults = policies((await render(['networkPolicy.enabled=true'])).objects);
    const bundledRedis = {
      ports: tcp(6379),
      to: [
        {
          podSelector: {
            matchLabels: {
              'app.kubernetes.io/name': 'inference-gateway',
              'app.kubernetes.io/instance': RELEASE,
              'app.kubernetes.io/component': 'redis',
            },
          },
        },
      ],
    };
    const upstreams = {
      ports: tcp(443),
      to: [
        {
          ipBlock: {
            cidr: '0.0.0.0/0',
            except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'],
          },
        },
        { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] } },
      ],
    };
    const kubernetesApi = { ports: tcp(443, 6443) };
    expect(defaults.gateway.ingress).toEqual([{ ports: http }, monitoring]);
    expect(defaults.gateway.egress).toEqual([dns, bundledRedis, upstreams]);
    expect(defaults.controlplane.ingress).toEqual([{ ports: http }, monitoring]);
    expect(defaults.controlplane.egress).toEqual([dns, bundledRedis, kubernetesApi, upstreams]);
    expect(defaults.operator.ingress).toEqual([monitoring]);
    expect(defaults.operator.egress).toEqual([dns, bundledRedis, kubernetesApi]);

    // Narrowed: the gateway from the ingress controller only, the control plane from one app, an
    // external Redis by CIDR, the API server's address, and an extra rule for a trace collector.
    const ingressNamespace = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } },
    };
    const backend = { podSelector: { matchLabels: { app: 'backend' } } };
    const collector = { to: [{ ipBlock: { cidr: '10.9.0.5/32' } }], ports: tcp(4318) };
    const narrowed = policies(
      (
        await render([
          'networkPolicy.enabled=true',
          'networkPolicy.gateway.from[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=ingress',
          'networkPolicy.controlPlane.from[0].podSelector.matchLabels.app=backend',
          'networkPolicy.metrics.from=null',
          'redis.enabled=false',
          'redis.url=redis://redis.example:6380',
          'networkPolicy.egress.redis.to[0].ipBlock.cidr=10.1.0.0/16',
          'networkPolicy.egress.redis.ports={6380}',
          'networkPolicy.egress.kubernetesApi.to[0].ipBlock.cidr=10.0.0.1/32',
          'networkPolicy.egress.extra[0].to[0].ipBlock.cidr=10.9.0.5/32',
          'networkPolicy.egress.extra[0].ports[0].port=4318',
          'networkPolicy.egress.extra[0].ports[0].protocol=TCP',
        ])
      ).objects,
    );
    const externalRedis = { ports: tcp(6380), to: [{ ipBlock: { cidr: '10.1.0.0/16' } }] };
    const narrowApi = { ports: tcp(443, 6443), to: [{ ipBlock: { cidr: '10.0.0.1/32' } }] };
    expect(narrowed.gateway.ingress).toEqual([{ ports: http, from: [ingressNamespace] }]);
    expect(narrowed.gateway.egress).toEqual([dns, externalRedis, upstreams, collector]);
    expect(narrowed.controlplane.ingress).toEqual([{ ports: http, from: [backend] }]);
    expect(narrowed.controlplane.egress).toEqual([dns, externalRedis, narrowApi, upstreams, collector]);
    expect(narrowed.operator.ingress).toEqual([]);
    expect(narrowed.operator.egress).toEqual([dns, externalRedis, narrowApi, collector]);
  });

  it('renders an optional ServiceMonitor for the gateway /metrics', async () => {
    const { objects: without } = await render();
    expect(without.find((object) => object.kind === 'ServiceMonitor')).toBeUndefined();
    const { objects } = await render(['serviceMonitor.enabled=true']);
    const monitor = find(objects, 'ServiceMonitor', `${RELEASE}-gateway`);
    expect(monitor.spec?.endpoints).toMatchObject([{ port: 'http', path: '/metrics' }]);
  });

  it('grants the operator and the control plane exactly the documented verbs', async () => {
    const { objects } = await render();
    const operator = find(objects, 'ClusterRole', `${RELEASE}-operator`);
    const tenantRoles = [`${RELEASE}-controlplane-tenant`, `${RELEASE}-operator-tenant`];
    expect(operator.rules).toEqual([
      {
        apiGroups: ['gateway.service.io'],
        resources: ['tenants', 'cachepolicies', 'connections', 'modelroutes'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      {
        apiGroups: ['gateway.service.io'],
        resources: ['tenants/status', 'cachepolicies/status', 'connections/status', 'modelroutes/status'],
        verbs: ['patch'],
      },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'patch'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['rolebindings'],
        resourceNames: tenantRoles,
        verbs: ['patch', 'delete'],
      },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        resourceNames: tenantRoles,
        verbs: ['bind'],
      },
    ]);
    // Bound by the operator in each tenant namespace, never cluster-wide.
    expect(find(objects, 'ClusterRole', `${RELEASE}-operator-tenant`).rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] },
    ]);
    const bound = objects
      .filter((object) => object.roleRef !== undefined)
      .map((object) => object.roleRef?.name);
    expect(bound).not.toContain(`${RELEASE}-operator-tenant`);
    expect(bound).not.toContain(`${RELEASE}-controlplane-tenant`);
    const operatorEnv = envOf(
      podSpec(find(objects, 'Deployment', `${RELEASE}-operator`)).containers[0] as Container,
    );
    expect(operatorEnv.get('OPERATOR_TENANT_ROLE_BINDINGS')?.value).toBe(
      `${RELEASE}-controlplane-tenant=${NAMESPACE}/${RELEASE}-controlplane,${RELEASE}-operator-tenant=${NAMESPACE}/${RELEASE}-operator`,
    );
    const lease = find(objects, 'Role', `${RELEASE}-operator-leader-election`);
    expect(lease.metadata.namespace).toBe(NAMESPACE);
    expect(lease.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [`${RELEASE}-operator`],
        verbs: ['get', 'update'],
      },
    ]);
    const controlPlane = find(objects, 'ClusterRole', `${RELEASE}-controlplane`);
    expect(controlPlane.rules).toEqual([
      { apiGroups: ['gateway.service.io'], resources: ['tenants'], verbs: ['get', 'create', 'patch'] },
    ]);
    expect(find(objects, 'ClusterRole', `${RELEASE}-controlplane-tenant`).rules).toEqual([
      {
        apiGroups: ['gateway.service.io'],
        resources: ['connections', 'cachepolicies', 'modelroutes'],
        verbs: ['list', 'create', 'patch', 'delete'],
      },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'create', 'patch', 'delete'] },
    ]);
  });

  it("requires the Kubernetes version its CRDs' validation rules need, and refuses older ones", async () => {
    // The first 1.x whose API server knows each field of an x-kubernetes-validations entry (rules
    // are on by default from 1.25; messageExpression 1.27; fieldPath and reason 1.28; optionalOldSelf
    // needs CRDValidationRatcheting, on by default from 1.30).
    const since: Record<string, number> = {
      rule: 25,
      message: 25,
      messageExpression: 27,
      fieldPath: 28,
      reason: 28,
      optionalOldSelf: 30,
    };
    const fields = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) for (const child of node) collect(child);
      else if (node !== null && typeof node === 'object') {
        const rules = (node as Record<string, unknown>)['x-kubernetes-validations'];
        for (const rule of Array.isArray(rules) ? rules : [])
          for (const field of Object.keys(rule)) fields.add(field);
        for (const child of Object.values(node)) collect(child);
      }
    };
    for (const file of readdirSync(join(REPO_ROOT, 'crds'))) {
      for (const document of parseAllDocuments(readFileSync(join(REPO_ROOT, 'crds', file), 'utf8'))) {
        collect(document.toJS());
      }
    }
    expect([...fields].filter((field) => !(field in since))).toEqual([]);
    const minor = Math.max(...[...fields].map((field) => since[field] ?? 0));
    expect(minor).toBe(28);
    const chart = parseAllDocuments(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))[0]?.toJS() as {
      kubeVersion: string;
    };
    expect(chart.kubeVersion).toBe(`>=1.${minor}.0-0`);
    const older = await template([], ['--kube-version', `1.${minor - 1}.9`]);
    expect(older.code).not.toBe(0);
    expect(older.stderr).toContain('kubeVersion');
    expectSuccess(await template([], ['--kube-version', `1.${minor}.0`]), `helm template for 1.${minor}.0`);
  });

  it("ships the repository's CRDs unchanged in charts/inference-gateway/crds", () => {
    const sources = readdirSync(join(REPO_ROOT, 'crds')).sort();
    expect(readdirSync(join(CHART, 'crds')).sort()).toEqual(sources);
    for (const file of sources) {
      expect(readFileSync(join(CHART, 'crds', file), 'utf8'), file).toBe(
        readFileSync(join(REPO_ROOT, 'crds', file), 'utf8'),
      );
    }
  });

  it('keeps manifests/install.yaml up to date with helm template (scripts/render-manifests.sh --check)', async () => {
    const { helm } = requireHelmTools();
    const result = await run('bash', [join(REPO_ROOT, 'scripts/render-manifests.sh'), '--check'], {
      env: { ...process.env, HELM_BIN: helm },
    });
    expectSuccess(result, 'render-manifests.sh --check (run scripts/render-manifests.sh to update)');
    const objects = parseObjects(readFileSync(join(REPO_ROOT, 'manifests/install.yaml'), 'utf8'));
    expect(objects[0]).toMatchObject({ kind: 'Namespace', metadata: { name: NAMESPACE } });
    expect(objects.filter((object) => object.kind === 'CustomResourceDefinition')).toHaveLength(4);
    // The plain install bakes no key in: the keys come from a Secret the user creates.
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
  });
});

describe.runIf(kubeOk)('the rendered chart on a real kube-apiserver', () => {
  let plane: KubeControlPlane;
  const kubectl = (args: readonly string[], input?: string) =>
    run(requireHelmTools().kubectl, ['--kubeconfig', plane.kubeconfigPath, ...args], { input });

  beforeAll(async () => {
    plane = await startKubeControlPlane();
    // tenant-platform: a dry run does not create the namespace the chart's day-one Secret goes to.
    for (const name of [NAMESPACE, 'tenant-acme', 'tenant-platform']) {
      expectSuccess(await kubectl(['create', 'namespace', name]), `create namespace ${name}`);
    }
  }, 120_000);
  afterAll(async () => {
    await plane?.stop();
  });

  it('accepts the default render with kubectl apply --dry-run=server', async () => {
    const { text } = await render();
    const result = await kubectl(['apply', '--dry-run=server', '-f', '-'], text);
    expectSuccess(result, 'kubectl apply --dry-run=server (defaults)');
    expect(result.stdout).toContain(`deployment.apps/${RELEASE}-gateway created (server dry run)`);
  });

  it('accepts the external Redis / existing Secrets render with kubectl apply --dry-run=server', async () => {
    const { text } = await render([
      ...EXTERNAL_VALUES,
      'controlPlane.autoscaling.enabled=true',
      'networkPolicy.enabled=true',
    ]);
    const result = await kubectl(['apply', '--dry-run=server', '-f', '-'], text);
    expectSuccess(result, 'kubectl apply --dry-run=server (external)');
    expect(result.stdout).toContain(`horizontalpodautoscaler.autoscaling/${RELEASE}-controlplane created`);
    expect(result.stdout).toContain(`networkpolicy.networking.k8s.io/${RELEASE}-gateway created`);
    const sentinel = await render([
      'redis.enabled=false',
      'redis.sentinel.nodes={sentinel-0:26379,sentinel-1:26379}',
      'redis.sentinel.existingSecret=sentinel-auth',
      'redis.auth.existingSecret=redis-auth',
      'redis.tls.caSecret=redis-ca',
    ]);
    expectSuccess(
      await kubectl(['apply', '--dry-run=server', '-f', '-'], sentinel.text),
      'kubectl apply --dry-run=server (Sentinel, TLS with a CA)',
    );
  });

  it('accepts manifests/install.yaml and examples/ with kubectl apply --dry-run=server', async () => {
    const install = await kubectl([
      'apply',
      '--dry-run=server',
      '-f',
      join(REPO_ROOT, 'manifests/install.yaml'),
    ]);
    expectSuccess(install, 'kubectl apply --dry-run=server -f manifests/install.yaml');
    const examples = await kubectl(['apply', '--dry-run=server', '-f', join(REPO_ROOT, 'examples')]);
    expectSuccess(examples, 'kubectl apply --dry-run=server -f examples/');
    expect(examples.stdout).toContain('connection.gateway.service.io/acme-openai created (server dry run)');
    expect(examples.stdout).toContain('cachepolicy.gateway.service.io/default created (server dry run)');
    expect(examples.stdout).toContain('tenant.gateway.service.io/acme created (server dry run)');
  });

  describe('RBAC, once applied', () => {
    beforeAll(async () => {
      const { text } = await render();
      expectSuccess(await kubectl(['apply', '--server-side', '-f', '-'], text), 'kubectl apply (defaults)');
    });

    /** `kubectl auth can-i` as the ServiceAccount; `resource` may be `plural.group[/name]`. */
    const can = async (
      serviceAccount: string,
      verb: string,
      resource: string,
      namespace?: string,
      subresource?: string,
    ) => {
      const args = [
        'auth',
        'can-i',
        verb,
        resource,
        `--as=system:serviceaccount:${NAMESPACE}:${serviceAccount}`,
      ];
      if (namespace) args.push('-n', namespace);
      if (subresource) args.push(`--subresource=${subresource}`);
      const result = await kubectl(args);
      return result.stdout.trim() === 'yes';
    };

    it('lets the operator reconcile, write status and finalizers, create namespaces and hold its Lease', async () => {
      const sa = `${RELEASE}-operator`;
      for (const resource of [
        'tenants',
        'cachepolicies.gateway.service.io',
        'connections.gateway.service.io',
        'modelroutes.gateway.service.io',
      ]) {
        for (const verb of ['get', 'list', 'watch', 'patch']) {
          expect(await can(sa, verb, resource, 'tenant-acme'), `${verb} ${resource}`).toBe(true);
        }
        for (const verb of ['update', 'delete', 'create']) {
          expect(await can(sa, verb, resource, 'tenant-acme'), `${verb} ${resource}`).toBe(false);
        }
      }
      expect(await can(sa, 'patch', 'connections.gateway.service.io', 'tenant-acme', 'status')).toBe(true);
      expect(await can(sa, 'update', 'cachepolicies.gateway.service.io', 'tenant-acme', 'status')).toBe(
        false,
      );
      expect(await can(sa, 'update', 'tenants.gateway.service.io', undefined, 'finalizers')).toBe(false);
      expect(await can(sa, 'watch', 'secrets', 'tenant-acme')).toBe(true);
      expect(await can(sa, 'get', 'secrets', 'tenant-acme')).toBe(false);
      expect(await can(sa, 'delete', 'secrets', 'kube-system')).toBe(false);
      expect(await can(sa, 'create', 'rolebindings.rbac.authorization.k8s.io', 'tenant-acme')).toBe(true);
      expect(
        await can(sa, 'bind', `clusterroles.rbac.authorization.k8s.io/${RELEASE}-controlplane-tenant`),
      ).toBe(true);
      expect(await can(sa, 'bind', 'clusterroles.rbac.authorization.k8s.io/cluster-admin')).toBe(false);
      expect(await can(sa, 'escalate', 'clusterroles.rbac.authorization.k8s.io')).toBe(false);
      expect(await can(sa, 'create', 'secrets', 'tenant-acme')).toBe(false);
      expect(await can(sa, 'create', 'namespaces')).toBe(true);
      expect(await can(sa, 'get', 'namespaces')).toBe(false);
      expect(await can(sa, 'delete', 'namespaces')).toBe(false);
      expect(await can(sa, 'create', 'events.events.k8s.io', 'tenant-acme')).toBe(true);
      expect(await can(sa, 'create', 'events', 'tenant-acme')).toBe(false);
      expect(await can(sa, 'create', 'leases.coordination.k8s.io', NAMESPACE)).toBe(true);
      expect(await can(sa, 'update', `leases.coordination.k8s.io/${RELEASE}-operator`, NAMESPACE)).toBe(true);
      expect(await can(sa, 'patch', `leases.coordination.k8s.io/${RELEASE}-operator`, NAMESPACE)).toBe(false);
      expect(await can(sa, 'update', 'leases.coordination.k8s.io/someone-else', NAMESPACE)).toBe(false);
      expect(await can(sa, 'create', 'leases.coordination.k8s.io', 'tenant-acme')).toBe(false);
    });

    it('lets the control plane create, read and patch Tenants, write resources and Secrets, and nothing else', async () => {
      const sa = `${RELEASE}-controlplane`;
      // Nothing in a namespace until the operator binds the control plane's tenant role there.
      for (const namespace of ['tenant-acme', 'kube-system', NAMESPACE]) {
        expect(await can(sa, 'delete', 'secrets', namespace), namespace).toBe(false);
        expect(await can(sa, 'list', 'connections.gateway.service.io', namespace), namespace).toBe(false);
      }
      const bind = (role: string, name: string) =>
        kubectl([
          'create',
          'rolebinding',
          name,
          `--clusterrole=${role}`,
          `--serviceaccount=${NAMESPACE}:${sa}`,
          '-n',
          'tenant-acme',
          `--as=system:serviceaccount:${NAMESPACE}:${RELEASE}-operator`,
        ]);
      // What the operator does as it creates a tenant namespace; it may bind no other role.
      expectSuccess(
        await bind(`${RELEASE}-controlplane-tenant`, `${RELEASE}-controlplane-tenant`),
        'the operator binds the tenant role',
      );
      const escalation = await bind('cluster-admin', 'planted');
      expect(escalation.code).not.toBe(0);
      expect(escalation.stderr).toContain('forbidden');
      expect(await can(sa, 'delete', 'secrets', 'kube-system')).toBe(false);
      for (const verb of ['create', 'patch', 'delete']) {
        expect(await can(sa, verb, 'connections.gateway.service.io', 'tenant-acme'), verb).toBe(true);
        expect(await can(sa, verb, 'cachepolicies.gateway.service.io', 'tenant-acme'), verb).toBe(true);
        expect(await can(sa, verb, 'modelroutes.gateway.service.io', 'tenant-acme'), verb).toBe(true);
        expect(await can(sa, verb, 'secrets', 'tenant-acme'), verb).toBe(true);
      }
      expect(await can(sa, 'list', 'connections.gateway.service.io', 'tenant-acme')).toBe(true);
      expect(await can(sa, 'list', 'cachepolicies.gateway.service.io', 'tenant-acme')).toBe(true);
      expect(await can(sa, 'get', 'secrets', 'tenant-acme')).toBe(true);
      for (const verb of ['update', 'watch']) {
        expect(await can(sa, verb, 'connections.gateway.service.io', 'tenant-acme'), verb).toBe(false);
        expect(await can(sa, verb, 'secrets', 'tenant-acme'), verb).toBe(false);
      }
      for (const verb of ['get', 'create', 'patch']) {
        expect(await can(sa, verb, 'tenants.gateway.service.io'), `${verb} tenants`).toBe(true);
      }
      for (const verb of ['list', 'watch', 'update', 'delete']) {
        expect(await can(sa, verb, 'tenants.gateway.service.io'), `${verb} tenants`).toBe(false);
      }
      expect(await can(sa, 'patch', 'tenants.gateway.service.io', undefined, 'status')).toBe(false);
      expect(await can(sa, 'patch', 'connections.gateway.service.io', 'tenant-acme', 'status')).toBe(false);
      expect(await can(sa, 'create', 'namespaces')).toBe(false);
      expect(await can(sa, 'get', 'pods', NAMESPACE)).toBe(false);
    });

    it('gives the gateway nothing', async () => {
      const sa = `${RELEASE}-gateway`;
      expect(await can(sa, 'get', 'secrets', NAMESPACE)).toBe(false);
      expect(await can(sa, 'list', 'connections.gateway.service.io', 'tenant-acme')).toBe(false);
    });
  });
});
