/**
 * Runs the real `gateway` role in a child process (`node src/main/cli.ts gateway`), as a second
 * pod next to the test's own process, on a port of its choosing (GATEWAY_PORT=0; the address is
 * read from its "gateway started" log line). The child never outlives the test: `stop()` ends it
 * (SIGTERM, then SIGKILL), this process's exit kills it, and if this process dies without either
 * (SIGKILL, a crashed worker) the preloaded child-guard.ts sees its stdin pipe close and stops it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GatewayProcess {
  url: string;
  /** What the child printed so far (the last 16 KB), for failure messages. */
  output(): string;
  /** Resolves once `text` (a log line's message, say) appears in the output; rejects if the child exits first. */
  waitForOutput(text: string): Promise<void>;
  /** Resolves with how the child ended. */
  exited: Promise<ExitStatus>;
  /** Sends SIGTERM (the graceful shutdown), then SIGKILL after `killAfterMs`; resolves with how it ended. */
  stop(killAfterMs?: number): Promise<ExitStatus>;
}

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src/main/cli.ts');
const GUARD = join(import.meta.dirname, 'child-guard.ts');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<ExitStatus>,
  killAfterMs = STOP_TIMEOUT_MS,
): Promise<ExitStatus> {
  if (!hasExited(child)) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
  return exited;
}

/** The address in the role's "gateway started" line (pino JSON), once it has been printed. */
function startedAddress(output: string): string | undefined {
  // Complete lines only: the last one may still be arriving.
  for (const line of output.split('\n').slice(0, -1)) {
    if (!line.includes('"gateway started"')) continue;
    try {
      const address = (JSON.parse(line) as { address?: unknown }).address;
      if (typeof address === 'string') return address;
    } catch {
      // A line cut by the output's size limit: not the one.
    }
  }
  return undefined;
}

/**
 * Starts the gateway role with `env` (settings only: REDIS_URL, SERVICE_ENCRYPTION_KEY, signing
 * key, provider keys and base URLs...); resolves once it listens.
 */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', GUARD, CLI, 'gateway'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      SHUTDOWN_GRACE_MS: '2000',
      ...env,
      // The "gateway started" line is at info.
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<ExitStatus>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-16_384);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`the gateway process did not start in ${START_TIMEOUT_MS} ms:\n${output}`)),
        START_TIMEOUT_MS,
      );
      const check = () => {
        const address = startedAddress(output);
        if (address === undefined) return;
        cleanUp();
        resolve(address);
      };
      const onExit = (code: number | null, signal: string | null) =>
        fail(new Error(`the gateway process exited (code ${code}, signal ${signal}):\n${output}`));
      const fail = (error: Error) => {
        cleanUp();
        reject(error);
      };
      const cleanUp = () => {
        clearTimeout(timer);
        child.stdout.off('data', check);
        child.off('exit', onExit);
        child.off('error', fail);
      };
      child.stdout.on('data', check);
      child.once('exit', onExit);
      child.once('error', fail);
    });
    const waitForOutput = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!output.includes(text)) return;
          child.stdout.off('data', check);
          child.stderr.off('data', check);
          resolve();
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        check();
        void exited.then(() => {
          check();
          reject(new Error(`the gateway process exited before printing '${text}':\n${output}`));
        });
      });
    return {
      url,
      output: () => output,
      waitForOutput,
      exited,
      stop: (killAfterMs) => stopChild(child, exited, killAfterMs),
    };
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
}
