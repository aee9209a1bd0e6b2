/**
 * GitOps (README "GitOps (Argo CD, Flux)"): Argo CD and Flux render the chart with `helm template`
 * on every sync and apply the result. Here, on the real test API server: `helm template |
 * kubectl apply` twice with the same values, and after each apply the ensure-secrets Job's own
 * command run as its pod would run it (the rendered environment, a token of the Job's
 * ServiceAccount, so with exactly the chart's grants); an operator, a control plane and a gateway
 * run on the keys those Secrets hold. After the second sync every Secret is as it was, and the
 * admin PAT, the first tenant's API key and PAT, a token minted before, and a Connection sealed
 * before all still work.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadSettings } from '../../../src/config/settings.ts';
import { type RunningControlPlane, startControlPlane } from '../../../src/main/controlplane-role.ts';
import { type RunningGateway, startGateway } from '../../../src/main/gateway-role.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { PROVIDER_NAMES } from '../../../src/providers/registry.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import {
  condition,
  connection,
  type KubeObject,
  type OperatorTestBed,
  operatorSuitesAvailable,
  secret,
  startOperatorTestBed,
} from '../operator/operator-test-bed.ts';

const available = operatorSuitesAvailable() && helmAvailable();
const RELEASE = 'inference-gateway';
// The test bed's operator namespace.
const NAMESPACE = 'gateway-system';
const VALUES = ['bootstrap.firstTenant.enabled=true'];
const execFileAsync = promisify(execFile);

interface RenderedJob {
  metadata: { name: string };
  spec: {
    template: {
      spec: {
        serviceAccountName: string;
        containers: { args: string[]; env: { name: string; value?: string; valueFrom?: unknown }[] }[];
      };
    };
  };
}

async function helmTemplate(): Promise<string> {
  const { helm } = requireHelmTools();
  const result = await run(helm, [
    'template',
    RELEASE,
    join(REPO_ROOT, 'charts/inference-gateway'),
    '--namespace',
    NAMESPACE,
    ...VALUES.flatMap((value) => ['--set', value]),
  ]);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return result.stdout;
}

describe.runIf(available)('helm template | kubectl apply, twice, as Argo CD and Flux sync', () => {
  let bed: OperatorTestBed;
  let upstream: FakeServer;
  let controlPlane: RunningControlPlane | undefined;
  let gateway: RunningGateway | undefined;

  const kubectl = (args: readonly string[], input?: string) =>
    run(requireHelmTools().kubectl, ['--kubeconfig', bed.plane.kubeconfigPath, ...args], { input });

  /** `kubectl apply` of the rendered text; its output lines. */
  const apply = async (text: string) => {
    const result = await kubectl(['apply', '-f', '-'], text);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.trim().split('\n');
  };

  /** The Job's command as its pod runs it: its args and rendered environment, its ServiceAccount's token. */
  const runJob = async (text: string) => {
    const job = parseAllDocuments(text)
      .map((document) => document.toJS() as (KubeObject & RenderedJob) | null)
      .find((object) => object?.kind === 'Job');
    if (!job) throw new Error('no Job rendered');
    const pod = job.spec.template.spec;
    const account = pod.serviceAccountName;
    const tokenRequest = await bed.plane.request(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${account}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    );
    const token = (tokenRequest.body as { status: { token: string } }).status.token;
    const container = pod.containers[0];
    if (!container) throw new Error('the Job has no container');
    // The pod's environment: the rendered values, and the namespace its fieldRef gives.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      KUBECONFIG: await bed.plane.writeKubeconfig(token, account),
      LOG_LEVEL: 'info',
    };
    for (const entry of container.env) {
      if (entry.value !== undefined) env[entry.name] = entry.value;
      else if (entry.name === 'POD_NAMESPACE') env[entry.name] = NAMESPACE;
    }
    const { stdout } = await execFileAsync(process.execPath, ['src/main/cli.ts', ...container.args], {
      cwd: REPO_ROOT,
      env,
      timeout: 60_000,
    });
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; namespace?: string; name?: string });
  };

  /** Every Secret the Job made, as the API holds it (resourceVersion and data). */
  const secrets = async () => {
    const names: [string, string][] = [
      [NAMESPACE, `${RELEASE}-encryption`],
      [NAMESPACE, `${RELEASE}-token-signing`],
      [NAMESPACE, `${RELEASE}-admin-pat`],
      [NAMESPACE, `${RELEASE}-first-tenant`],
      ['tenant-platform', 'admin-pat'],
      ['tenant-first', 'first-api-key'],
      ['tenant-first', 'first-pat'],
    ];
    const found: Record<string, { resourceVersion?: string; data: Record<string, string> }> = {};
    for (const [namespace, name] of names) {
      const object = (await bed.read('Secret', name, namespace)) as
        | (KubeObject & { metadata: { resourceVersion?: string }; data?: Record<string, string> })
        | undefined;
      if (!object) throw new Error(`Secret ${namespace}/${name} does not exist`);
      found[`${namespace}/${name}`] = {
        resourceVersion: object.metadata.resourceVersion,
        data: object.data ?? {},
      };
    }
    return found;
  };
  const value = (all: Awaited<ReturnType<typeof secrets>>, secretName: string, key: string) =>
    Buffer.from(all[secretName]?.data[key] ?? '', 'base64').toString();

  /** A gateway as a pod would start it: its keys from the Secrets as they are now. */
  const startGatewayFromSecrets = async () => {
    const all = await secrets();
    return startGateway(
      loadSettings(
        {
          HOST: '127.0.0.1',
          GATEWAY_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: value(all, `${NAMESPACE}/${RELEASE}-encryption`, 'encryption-key'),
          SERVICE_TOKEN_SIGNING_KEY: value(all, `${NAMESPACE}/${RELEASE}-token-signing`, 'signing-key'),
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'gateway'),
    );
  };

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    upstream = await startFakeOpenAi();
  });
  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.close();
    await upstream?.stop();
    await bed?.close();
  });

  it('keeps every generated key and credential working across a second render and apply', async () => {
    // First sync.
    const rendered = await helmTemplate();
    expect(await helmTemplate()).toBe(rendered);
    const firstApply = await apply(rendered);
    expect(firstApply.some((line) => /^secret\//.test(line))).toBe(false);
    const firstRun = await runJob(rendered);
    expect(firstRun.filter((line) => line.msg === 'secret created').map((line) => line.name)).toHaveLength(7);
    const before = await secrets();
    const key = (name: string) => value(before, `${NAMESPACE}/${RELEASE}-first-tenant`, name);
    const adminPat = value(before, `${NAMESPACE}/${RELEASE}-admin-pat`, 'token');

    // The roles on those keys, as their pods would read them.
    const encryptionKey = value(before, `${NAMESPACE}/${RELEASE}-encryption`, 'encryption-key');
    await bed.startOperator({
      encryptionKey: loadSettings({ SERVICE_ENCRYPTION_KEY: encryptionKey }, PROVIDER_NAMES).encryptionKey,
    });
    gateway = await startGatewayFromSecrets();
    process.env.KUBECONFIG = bed.plane.kubeconfigPath;
    controlPlane = await startControlPlane(
      loadSettings(
        {
          HOST: '127.0.0.1',
          CONTROL_PORT: '0',
          REDIS_URL: bed.redis.url,
          SERVICE_ENCRYPTION_KEY: encryptionKey,
          SERVICE_TOKEN_SIGNING_KEY: value(before, `${NAMESPACE}/${RELEASE}-token-signing`, 'signing-key'),
          LOG_LEVEL: 'silent',
        },
        PROVIDER_NAMES,
      ),
      createLogger('silent', 'controlplane'),
    );
    // A Connection, sealed with the encryption key in the config store.
    await bed.apply(secret('own-key', 'tenant-first', { apiKey: 'sk-first-own-key-0123456789' }));
    await bed.apply(
      connection('own', 'tenant-first', {
        provider: 'openai-compatible',
        baseUrl: `${upstream.url}/v1`,
        secretRef: { name: 'own-key' },
      }),
    );
    await expect
      .poll(async () => condition(await bed.read('Connection', 'own', 'tenant-first'), 'Ready')?.status, {
        timeout: 15_000,
      })
      .toBe('True');

    const works = async (token: string) => {
      const controlUrl = controlPlane?.url ?? '';
      const admin = await graphql(controlUrl, adminPat, '{ tenantTree { id } }', {}, '/admin/graphql');
      const pat = await graphql(controlUrl, key('pat'), '{ apiKeys { id } }');
      const chat = { model: '@own/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };
      const byKey = await postJson(`${gateway?.url}/v1/chat/completions`, chat, key('apiKey'));
      const byToken = await postJson(`${gateway?.url}/v1/chat/completions`, chat, token);
      return {
        admin: [admin.status, admin.errors],
        pat: [pat.status, pat.errors],
        apiKey: byKey.status,
        token: byToken.status,
      };
    };
    const expected = { admin: [200, undefined], pat: [200, undefined], apiKey: 200, token: 200 };
    // The operator publishes the key Secrets; the gateway's view follows the store's feed.
    await expect
      .poll(() => graphql(controlPlane?.url ?? '', key('pat'), '{ apiKeys { id } }'), { timeout: 15_000 })
      .toMatchObject({ status: 200 });
    const minted = await graphql<{ mintEphemeralToken: MintedToken }>(controlPlane.url, key('pat'), MINT, {
      input: { parentKeyId: key('apiKeyId'), ttlSeconds: 600, scopes: ['chat'] },
    });
    expect(minted.errors).toBeUndefined();
    const token = minted.data?.mintEphemeralToken.token ?? '';
    await expect.poll(() => works(token), { timeout: 15_000 }).toEqual(expected);

    // Second sync with the same values: the same bytes, nothing new, and the Job keeps everything.
    const again = await helmTemplate();
    expect(again).toBe(rendered);
    const secondApply = await apply(again);
    expect(secondApply.filter((line) => line.endsWith(' created'))).toEqual([]);
    const secondRun = await runJob(again);
    expect(secondRun.filter((line) => line.msg === 'secret created')).toEqual([]);
    expect(secondRun.filter((line) => line.msg === 'secret kept')).toHaveLength(7);
    expect(await secrets()).toEqual(before);

    // What a rolling restart after the sync would start: a gateway on the Secrets as they are now.
    await gateway.close();
    gateway = await startGatewayFromSecrets();
    await expect.poll(() => works(token), { timeout: 15_000 }).toEqual(expected);
  });
});
