/**
 * coordination.k8s.io/v1 Leases for leader election: read, create, and replace guarded by the
 * resourceVersion that was read (a 409 means someone else wrote first). Each request ends at its
 * timeout or when the caller's signal aborts (leader election passes its renew deadline).
 */
import { isKubeStatus, type KubeTransport } from './kubernetes-transport.ts';

/** The Lease spec fields leader election uses (times are metav1.MicroTime strings). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface StoredLease {
  resourceVersion: string;
  spec: LeaseSpec;
}

interface LeaseObject {
  metadata: { resourceVersion?: string };
  spec?: LeaseSpec;
}

/** Thrown when a create or replace lost the race (409). */
export class LeaseConflictError extends Error {
  constructor(name: string) {
    super(`lease ${name} was changed by someone else`);
    this.name = 'LeaseConflictError';
  }
}

export interface KubernetesLeasesOptions {
  /** Bound on each lease request (keep it well under the renew deadline); default 5 s. */
  timeoutMs?: number;
}

export class KubernetesLeases {
  readonly #transport: KubeTransport;
  readonly #timeoutMs: number;

  constructor(transport: KubeTransport, options: KubernetesLeasesOptions = {}) {
    this.#transport = transport;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
  }

  async get(namespace: string, name: string, signal?: AbortSignal): Promise<StoredLease | undefined> {
    const lease = await this.#transport.requestOptional<LeaseObject>({
      method: 'GET',
      path: this.#path(namespace, name),
      timeoutMs: this.#timeoutMs,
      signal,
    });
    return lease && this.#stored(lease);
  }

  async create(namespace: string, name: string, spec: LeaseSpec, signal?: AbortSignal): Promise<StoredLease> {
    return this.#write(name, {
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec },
      signal,
    });
  }

  async replace(
    namespace: string,
    name: string,
    resourceVersion: string,
    spec: LeaseSpec,
    signal?: AbortSignal,
  ): Promise<StoredLease> {
    return this.#write(name, {
      method: 'PUT',
      path: this.#path(namespace, name),
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace, resourceVersion },
        spec,
      },
      signal,
    });
  }

  async #write(
    name: string,
    request: { method: 'POST' | 'PUT'; path: string; body: object; signal: AbortSignal | undefined },
  ): Promise<StoredLease> {
    try {
      return this.#stored(
        await this.#transport.request<LeaseObject>({ ...request, timeoutMs: this.#timeoutMs }),
      );
    } catch (error) {
      if (isKubeStatus(error, 409)) throw new LeaseConflictError(name);
      throw error;
    }
  }

  #path(namespace: string, name: string): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/${encodeURIComponent(name)}`;
  }

  #stored(lease: LeaseObject): StoredLease {
    return { resourceVersion: lease.metadata.resourceVersion ?? '', spec: lease.spec ?? {} };
  }
}
