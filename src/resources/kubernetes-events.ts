/**
 * events.k8s.io/v1 Events the operator records about the objects it reconciles (what
 * `kubectl describe` and `kubectl get events` show). Never secret material.
 */
import { randomUUID } from 'node:crypto';
import type { KubeTransport } from './kubernetes-transport.ts';
import { type AnyResource, API_GROUP } from './types.ts';

export interface KubernetesEventInput {
  type: 'Normal' | 'Warning';
  /** PascalCase, e.g. `Published`. */
  reason: string;
  /** Human readable; at most 1 kB. Never secret material. */
  note: string;
  /** What the controller did, e.g. `Reconcile`. */
  action: string;
}

/** `metav1.MicroTime`: RFC 3339 with exactly six fractional digits. */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export async function recordEvent(
  transport: KubeTransport,
  instance: string,
  regarding: AnyResource,
  event: KubernetesEventInput,
): Promise<void> {
  const { kind, metadata } = regarding;
  // The API server takes an Event about a cluster-scoped object in `default` (or kube-system) only.
  const namespace = metadata.namespace ?? 'default';
  await transport.request({
    method: 'POST',
    path: `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`,
    body: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${metadata.name}.${randomUUID().slice(0, 13)}`, namespace },
      eventTime: microTime(),
      reportingController: `${API_GROUP}/operator`,
      reportingInstance: instance,
      action: event.action,
      reason: event.reason,
      note: event.note.slice(0, 1024),
      type: event.type,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind,
        name: metadata.name,
        namespace: metadata.namespace,
        uid: metadata.uid,
        resourceVersion: metadata.resourceVersion,
      },
    },
  });
}
