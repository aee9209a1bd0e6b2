/**
 * The operator (DESIGN section 2): Tenant, CachePolicy, Connection and ModelRoute (and the Secrets
 * they name) reconciled into the config store, by whichever replica holds the Lease.
 *
 * Every replica keeps its informers running; only the leader reconciles. On becoming the leader it
 * waits for the caches, rebuilds the whole store from them (which also removes whatever no object
 * owns any more), then queues every object so that finalizers, namespaces and status are current.
 * From then on, informer events queue the objects they concern. While leading it also checks every
 * few seconds that the store still has its epoch marker (Redis restarted without persistence:
 * rebuild) and rebuilds plus requeues everything every `resyncIntervalMs`.
 */

import { createSecretSealer } from '../auth/secret-box.ts';
import { recordFailure, type Tracing } from '../observability/tracing.ts';
import type { NamespaceRoleBinding } from '../resources/kubernetes-namespace-access.ts';
import type { ResourceChange } from '../resources/kubernetes-resources.ts';
import type { ResourceKind } from '../resources/types.ts';
import type { ConfigStore } from '../stores/types.ts';
import { CachePolicyController } from './cache-policy-controller.ts';
import { keysToReconcile } from './change-routing.ts';
import { syncConfigStore } from './config-sync.ts';
import { ConnectionController } from './connection-controller.ts';
import {
  type ControllerContext,
  NotLeaderError,
  type OperatorLog,
  type OperatorResources,
  parseObjectKey,
} from './controller-support.ts';
import { LeaderElector, type LeaseClient } from './leader-election.ts';
import { ModelRouteController } from './model-route-controller.ts';
import { desiredStateWithOwners, objectKey } from './object-outcomes.ts';
import { PublishedRecords } from './published-records.ts';
import { TenantController } from './tenant-controller.ts';
import { WorkQueue } from './work-queue.ts';

/**
 * What the operator runs on, opened by the caller (main/operator-io.ts against a cluster and Redis)
 * and closed by it after stop(): the operator itself does no I/O but through these.
 */
export interface OperatorPorts {
  resources: OperatorResources;
  leases: LeaseClient;
  store: ConfigStore;
}

export interface OperatorOptions extends OperatorPorts {
  /** 32-byte AES-256-GCM key that seals Connection secrets in the config store. */
  encryptionKey: Uint8Array;
  /**
   * The platform's own tenant (PLATFORM_TENANT; the chart's `bootstrap.adminPat.tenant`): only a
   * PAT Secret in its namespace is published as a platform-admin PAT. Unset: none anywhere.
   */
  platformTenant?: string;
  /**
   * The provider names a ModelRoute's `provider/model` target may use (the gateway's registry);
   * unset: not checked.
   */
  routeProviders?: readonly string[];
  /** Namespace and name of the coordination.k8s.io Lease. */
  leaseNamespace: string;
  leaseName?: string;
  /** This replica's identity in the Lease. */
  identity: string;
  /** Lease timings, client-go's defaults: 15 s / 10 s / 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Full rebuild and requeue of every object; default 5 minutes. */
  resyncIntervalMs?: number;
  /** How often the leader checks the store's epoch marker; default 5 s. */
  epochCheckIntervalMs?: number;
  /** Reconciles of different objects at once; default 4. */
  concurrency?: number;
  /** OpenTelemetry traces: a span per reconcile when on. */
  tracing?: Tracing;
  /** Counts reconciles and their duration, when given. */
  recordReconcile?: (kind: string, result: 'ok' | 'error', seconds: number) => void;
  /** Requeue backoff after a failed reconcile: base doubling up to max; default 200 ms / 60 s. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * RoleBindings made in each tenant namespace with the namespace (OPERATOR_TENANT_ROLE_BINDINGS),
   * so that the control plane's Secret rights reach tenant namespaces only; default none.
   */
  tenantRoleBindings?: readonly NamespaceRoleBinding[];
  log: OperatorLog;
}

export interface OperatorHealth {
  /** Every informer has listed once. */
  synced: boolean;
  leader: boolean;
  /** Leading, with the store rebuilt: events are being reconciled. */
  reconciling: boolean;
  identity: string;
  /** Reconciles queued or running. */
  queued: number;
}

export interface OperatorHandle {
  readonly identity: string;
  isLeader(): boolean;
  health(): OperatorHealth;
  /** Resolves when no leadership change is in progress and no reconcile is queued or running. */
  settled(): Promise<void>;
  /** Graceful: stop reconciling, release the Lease, close everything. */
  stop(): Promise<void>;
  /** A simulated crash: everything stops at once, the Lease is not released, nothing more is written. */
  crash(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<OperatorHandle> {
  const { log } = options;
  const { identity, resources, store } = options;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;

  const published = new PublishedRecords();
  const sealer = createSecretSealer(options.encryptionKey);

  let leading = false;
  /** Leading and past the first rebuild: only then do events queue reconciles (the caches are whole). */
  let reconciling = false;
  let halted = false;
  const context: ControllerContext = {
    resources,
    store,
    published,
    sealing: { seal: sealer.seal, digest: sealer.digest },
    credentialPolicy: { platformTenant: options.platformTenant, routeProviders: options.routeProviders },
    tenantRoleBindings: options.tenantRoleBindings ?? [],
    log,
    assertLeading: () => {
      if (!leading || halted) throw new NotLeaderError();
    },
    now: () => new Date(),
  };
  const controllers = {
    Tenant: new TenantController(context),
    CachePolicy: new CachePolicyController(context),
    Connection: new ConnectionController(context),
    ModelRoute: new ModelRouteController(context),
  };

  const queue = new WorkQueue({
    concurrency: options.concurrency,
    retryBaseMs: options.retryBaseMs,
    retryMaxMs: options.retryMaxMs,
    handler: async (key) => {
      if (!reconciling) return undefined;
      const ref = parseObjectKey(key);
      const span =
        options.tracing?.enabled === true
          ? options.tracing.tracer.startSpan(`reconcile ${ref.kind}`, {
              attributes: {
                'k8s.resource.kind': ref.kind,
                'k8s.resource.name': ref.name,
                ...(ref.namespace === undefined ? {} : { 'k8s.namespace.name': ref.namespace }),
              },
            })
          : undefined;
      const started = performance.now();
      const record = (result: 'ok' | 'error') =>
        options.recordReconcile?.(ref.kind, result, (performance.now() - started) / 1000);
      try {
        const outcome = (await controllers[ref.kind].reconcile(ref)) ?? undefined;
        record('ok');
        return outcome;
      } catch (error) {
        if (error instanceof NotLeaderError) return undefined;
        record('error');
        if (span !== undefined) recordFailure(span, error);
        throw error;
      } finally {
        span?.end();
      }
    },
    onError: (key, error, failures, retryInMs) =>
      log.warn({ key, err: error, failures, retryInMs }, 'reconcile failed; requeued with backoff'),
  });

  const route = (change: ResourceChange) => {
    if (!reconciling) return;
    for (const key of keysToReconcile(change, resources)) queue.add(key);
  };
  const unsubscribe = resources.onChange(route);

  const enqueueAll = () => {
    for (const kind of [
      'Tenant',
      'CachePolicy',
      'Connection',
      'ModelRoute',
    ] as const satisfies ResourceKind[]) {
      for (const item of resources.cachedList(kind)) queue.add(objectKey(item));
    }
  };

  /** Recomputes every record from the caches and makes the store hold exactly those (sets the epoch). */
  const rebuild = async (reason: string) => {
    context.assertLeading();
    const desired = desiredStateWithOwners(
      {
        tenants: resources.cachedList('Tenant'),
        cachePolicies: resources.cachedList('CachePolicy'),
        connections: resources.cachedList('Connection'),
        modelRoutes: resources.cachedList('ModelRoute'),
        secrets: resources.cachedList('Secret'),
      },
      context.sealing,
      context.credentialPolicy,
    );
    published.replaceAll(desired.owners);
    const counts = await syncConfigStore(store, desired.records);
    log.info({ reason, ...counts }, 'config store rebuilt from the resources');
  };

  let timers: NodeJS.Timeout[] = [];
  const background = new Set<Promise<void>>();
  const checkEpoch = async () => {
    try {
      if ((await store.getEpoch()) !== undefined || !leading) return;
      log.warn({}, 'the config store has no epoch marker (wiped?); rebuilding it');
      await queue.exclusive(() => rebuild('store wiped'));
      enqueueAll();
    } catch (error) {
      if (!(error instanceof NotLeaderError)) log.warn({ err: error }, 'config store epoch check failed');
    }
  };
  const resync = async () => {
    try {
      await queue.exclusive(() => rebuild('periodic resync'));
      enqueueAll();
    } catch (error) {
      if (!(error instanceof NotLeaderError)) log.warn({ err: error }, 'periodic resync failed');
    }
  };

  let leadership = 0;
  let transition: Promise<void> = Promise.resolve();
  const beginLeading = async (term: number) => {
    // Polled rather than awaited, so that a term ending before the caches fill ends this too.
    while (!resources.synced) {
      if (!leading || term !== leadership || halted) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    while (leading && term === leadership && !halted) {
      try {
        await queue.exclusive(() => rebuild('became the leader'));
        break;
      } catch (error) {
        if (error instanceof NotLeaderError) return;
        log.warn({ err: error }, 'initial rebuild failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, retryPeriodMs));
      }
    }
    if (!leading || term !== leadership || halted) return;
    reconciling = true;
    enqueueAll();
    const every = (ms: number, task: () => Promise<void>) => {
      let running: Promise<void> | undefined;
      const timer = setInterval(() => {
        if (running || !leading) return;
        const run = task().finally(() => {
          running = undefined;
          background.delete(run);
        });
        running = run;
        background.add(run);
      }, ms);
      timer.unref();
      timers.push(timer);
    };
    every(options.epochCheckIntervalMs ?? 5_000, checkEpoch);
    every(options.resyncIntervalMs ?? 5 * 60_000, resync);
  };
  const endLeading = async () => {
    reconciling = false;
    for (const timer of timers) clearInterval(timer);
    timers = [];
    await queue.drain();
    await Promise.allSettled([...background]);
    published.clear();
  };

  const elector = new LeaderElector({
    leases: options.leases,
    namespace: options.leaseNamespace,
    name: options.leaseName ?? 'inference-gateway-operator',
    identity,
    leaseDurationMs: options.leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    log,
    onStartedLeading: () => {
      leading = true;
      leadership += 1;
      const term = leadership;
      transition = transition
        .then(() => beginLeading(term))
        .catch((error) => log.error({ err: error }, 'leading failed'));
    },
    onStoppedLeading: () => {
      leading = false;
      reconciling = false;
      log.warn({ identity }, 'stopped leading: reconciling stops');
      transition = transition
        .then(endLeading)
        .catch((error) => log.error({ err: error }, 'stepping down failed'));
      return transition;
    },
  });

  resources.start();
  elector.start();
  log.info(
    { identity, lease: `${options.leaseNamespace}/${options.leaseName ?? 'inference-gateway-operator'}` },
    'operator started',
  );

  let stopping: Promise<void> | undefined;
  const shutDown = (release: boolean) => {
    stopping ??= (async () => {
      if (!release) halted = true;
      await elector.stop({ release });
      halted = true;
      await transition;
      unsubscribe();
      await queue.shutdown();
      log.info(
        { identity, released: release },
        release ? 'operator stopped' : 'operator halted (simulated crash)',
      );
    })();
    return stopping;
  };

  return {
    identity,
    isLeader: () => leading && !halted,
    health: () => ({
      synced: resources.synced,
      leader: leading && !halted,
      reconciling,
      identity,
      queued: queue.length,
    }),
    settled: async () => {
      for (;;) {
        const current = transition;
        await current;
        await queue.idle();
        if (current === transition && queue.length === 0) return;
      }
    },
    stop: () => shutDown(true),
    crash: () => shutDown(false),
  };
}
