/**
 * A real Kubernetes control plane for integration tests, envtest-style: etcd and kube-apiserver
 * (built from the Go module proxy by scripts/build-kube-bins.sh) on free loopback ports, token
 * auth, generated service-account keys, a kubeconfig, and the CRDs of crds/ applied and served.
 *
 * The binaries' folder comes from KUBE_BINS_PATH (`make test` and `.ci/run` set it). Without them
 * the suites are skipped with a printed reason, unless REQUIRE_KUBE=1, which makes that an error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, fetch } from 'undici';
import { parseAllDocuments } from 'yaml';
import { findFreePorts } from './redis-server.ts';

export interface KubeControlPlane {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
  /** Bearer token of a `system:masters` user. */
  adminToken: string;
  /** A kubeconfig file for that user (cluster, user and context `envtest`). */
  kubeconfigPath: string;
  /** An undici dispatcher that trusts the CA, for raw API calls. */
  dispatcher: Agent;
  /** Raw API call as admin; returns status and parsed JSON. */
  request(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: unknown }>;
  /** Writes a kubeconfig for another bearer token (e.g. a ServiceAccount's). */
  writeKubeconfig(token: string, name: string): Promise<string>;
  stop(): Promise<void>;
}

const ADMIN_TOKEN = 'admin-token';
const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Where the binaries are, or why they are not usable. */
export function kubeBinaries(): { dir: string } | { reason: string } {
  const dir = process.env.KUBE_BINS_PATH;
  if (!dir)
    return { reason: 'KUBE_BINS_PATH is not set (run `make test`, which builds the test binaries with Go)' };
  for (const binary of ['kube-apiserver', 'etcd']) {
    if (!existsSync(join(dir, binary))) return { reason: `${join(dir, binary)} does not exist` };
  }
  return { dir };
}

/** True when the kube suites can run; prints why not, or throws under REQUIRE_KUBE=1. */
export function kubeAvailable(): boolean {
  const found = kubeBinaries();
  if ('dir' in found) return true;
  if (process.env.REQUIRE_KUBE === '1')
    throw new Error(`REQUIRE_KUBE=1 but the test control plane is missing: ${found.reason}`);
  process.stderr.write(`skipping Kubernetes suites: ${found.reason}\n`);
  return false;
}

function spawnLogged(binary: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

/** Polls `probe` every 100 ms until it is true; fails if the process exits or the deadline passes. */
async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${output()}`);
    if (await probe().catch(() => false)) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${output()}`);
}

function kubeconfigYaml(server: string, caPem: string, token: string, name: string): string {
  const ca = Buffer.from(caPem).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster: {server: "${server}", certificate-authority-data: "${ca}"}
users:
- name: ${name}
  user: {token: "${token}"}
contexts:
- name: envtest
  context: {cluster: envtest, user: ${name}}
current-context: envtest
`;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts etcd and kube-apiserver on free ports. Ports are found by probing, so a suite running in
 * parallel can take one first: a start that fails is retried on new ports, up to three times.
 */
export async function startKubeControlPlane(options: { crdsDir?: string } = {}): Promise<KubeControlPlane> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      lastError = error;
      process.stderr.write(
        `test control plane start failed (attempt ${attempt} of 3): ${(error as Error).message.slice(0, 300)}\n`,
      );
    }
  }
  throw lastError;
}

async function startOnce(options: { crdsDir?: string }): Promise<KubeControlPlane> {
  const found = kubeBinaries();
  if (!('dir' in found)) throw new Error(found.reason);
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const work = await mkdtemp(join(base, 'kube-test-'));
  const [etcdClientPort, etcdPeerPort, apiPort] = (await findFreePorts(3)) as [number, number, number];

  const etcd = spawnLogged(join(found.dir, 'etcd'), [
    `--data-dir=${join(work, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdClientPort}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdClientPort}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
    '--unsafe-no-fsync=true',
  ]);
  const children = [etcd.child];
  try {
    await waitUntil(
      'etcd',
      async () => (await fetch(`http://127.0.0.1:${etcdClientPort}/health`)).ok,
      etcd.child,
      etcd.output,
      30_000,
    );

    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    await mkdir(join(work, 'certs'));
    await writeFile(join(work, 'sa.key'), keys.privateKey, { mode: 0o600 });
    await writeFile(join(work, 'sa.pub'), keys.publicKey);
    await writeFile(join(work, 'tokens.csv'), `${ADMIN_TOKEN},admin,admin-uid,"system:masters"\n`, {
      mode: 0o600,
    });

    const apiserver = spawnLogged(join(found.dir, 'kube-apiserver'), [
      `--etcd-servers=http://127.0.0.1:${etcdClientPort}`,
      `--cert-dir=${join(work, 'certs')}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--service-account-issuer=https://127.0.0.1:${apiPort}/`,
      `--service-account-key-file=${join(work, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(work, 'sa.key')}`,
      `--token-auth-file=${join(work, 'tokens.csv')}`,
    ]);
    children.push(apiserver.child);
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const server = `https://127.0.0.1:${apiPort}`;
    await waitUntil(
      'kube-apiserver',
      async () => {
        const response = await fetch(`${server}/readyz`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          dispatcher: insecure,
        });
        return response.ok;
      },
      apiserver.child,
      apiserver.output,
      90_000,
    );
    await insecure.close();

    // The generated apiserver.crt holds the serving cert followed by its CA.
    const bundle = await readFile(join(work, 'certs', 'apiserver.crt'), 'utf8');
    const pems = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
    const caPem = pems[1] ?? pems[0] ?? '';
    const dispatcher = new Agent({ connect: { ca: caPem } });

    const request: KubeControlPlane['request'] = async (
      method,
      path,
      body,
      contentType = 'application/json',
    ) => {
      const response = await fetch(`${server}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': contentType }),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        dispatcher,
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON; keep the text.
      }
      return { status: response.status, body: parsed };
    };

    const writeKubeconfig = async (token: string, name: string) => {
      const path = join(work, `kubeconfig-${name}`);
      await writeFile(path, kubeconfigYaml(server, caPem, token, name), { mode: 0o600 });
      return path;
    };
    const kubeconfigPath = await writeKubeconfig(ADMIN_TOKEN, 'admin');

    const plane: KubeControlPlane = {
      server,
      caPem,
      adminToken: ADMIN_TOKEN,
      kubeconfigPath,
      dispatcher,
      request,
      writeKubeconfig,
      async stop() {
        await dispatcher.close();
        for (const child of [...children].reverse()) await stopChild(child);
        await rm(work, { recursive: true, force: true });
      },
    };
    await applyCrds(plane, options.crdsDir ?? join(REPO_ROOT, 'crds'));
    return plane;
  } catch (error) {
    for (const child of [...children].reverse()) await stopChild(child);
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

/** Server-side applies every CRD in the folder and waits until discovery serves all of them. */
export async function applyCrds(plane: KubeControlPlane, dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const plurals = new Map<string, string[]>();
  for (const file of (await readdir(dir)).filter((name) => /\.ya?ml$/.test(name)).sort()) {
    for (const document of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      const crd = document.toJS() as {
        kind?: string;
        metadata?: { name?: string };
        spec?: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
      } | null;
      if (crd?.kind !== 'CustomResourceDefinition' || !crd.metadata?.name || !crd.spec) continue;
      const result = await plane.request(
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=test-harness&force=true`,
        crd,
        'application/apply-patch+yaml',
      );
      if (result.status >= 300)
        throw new Error(`applying CRD ${crd.metadata.name} failed: ${JSON.stringify(result.body)}`);
      for (const version of crd.spec.versions.filter((entry) => entry.served)) {
        const groupVersion = `${crd.spec.group}/${version.name}`;
        plurals.set(groupVersion, [...(plurals.get(groupVersion) ?? []), crd.spec.names.plural]);
      }
    }
  }
  const deadline = Date.now() + 30_000;
  for (const [groupVersion, expected] of plurals) {
    for (;;) {
      const result = await plane.request('GET', `/apis/${groupVersion}`);
      const served = new Set(
        ((result.body as { resources?: { name: string }[] }).resources ?? []).map(
          (resource) => resource.name,
        ),
      );
      if (result.status === 200 && expected.every((plural) => served.has(plural))) break;
      if (Date.now() > deadline)
        throw new Error(`CRDs of ${groupVersion} not served in time: ${JSON.stringify(result.body)}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }
}
