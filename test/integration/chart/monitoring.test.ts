/**
 * The chart's monitoring (off by default): ServiceMonitors (gateway, control plane) and a PodMonitor
 * (operator), a PrometheusRule and a Grafana dashboard ConfigMap for the sidecar. `helm lint
 * --strict` passes with them on; the dashboard is valid Grafana JSON; and every metric the
 * dashboard's and the alerts' PromQL names is one the service exports: read from a running
 * gateway's and control plane's /metrics, the control-plane role's registry and the operator's.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createControlPlaneMetrics } from '../../../src/observability/control-plane-metrics.ts';
import { createOperatorMetrics } from '../../../src/observability/operator-metrics.ts';
import { helmAvailable, REPO_ROOT, requireHelmTools, run } from '../../helpers/helm.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const CHART = join(REPO_ROOT, 'charts/inference-gateway');
const MONITORING = [
  'serviceMonitor.enabled=true',
  'prometheusRule.enabled=true',
  'grafanaDashboard.enabled=true',
];

interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

async function render(values: string[]): Promise<K8sObject[]> {
  const { helm } = requireHelmTools();
  const result = await run(helm, ['template', 'ig', CHART, ...values.flatMap((value) => ['--set', value])]);
  expect(result.code, result.stderr).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

/** Metric names a PromQL expression reads (histogram series mapped to their metric). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b(gateway_[a-z0-9_]+)/g)].map(([, name]) =>
    (name as string).replace(/_(bucket|sum|count)$/, ''),
  );
}

/** `# TYPE name kind` lines of a Prometheus exposition. */
function exported(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name as string));
}

describe.runIf(helmAvailable())('the chart’s monitoring', () => {
  let gateway: TestGateway;
  let names: Set<string>;

  beforeAll(async () => {
    gateway = await startTestGateway({ GATEWAY_CACHE: 'on' });
    const gatewayText = await (await fetch(`${gateway.url}/metrics`)).text();
    const controlPlaneText = await (await fetch(`${gateway.controlUrl}/metrics`)).text();
    const operator = createOperatorMetrics(() => ({ leader: true, synced: true, queued: 0 }));
    names = new Set([
      ...exported(gatewayText),
      ...exported(controlPlaneText),
      // The control-plane role's registry adds Node's process metrics (standalone leaves them to the gateway's).
      ...exported(await createControlPlaneMetrics().registry.metrics()),
      ...exported(await operator.registry.metrics()),
    ]);
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('is off by default, and passes helm lint --strict when on', async () => {
    const kinds = (await render([])).map((object) => object.kind);
    for (const kind of ['ServiceMonitor', 'PodMonitor', 'PrometheusRule']) expect(kinds).not.toContain(kind);
    const { helm } = requireHelmTools();
    const lint = await run(helm, [
      'lint',
      '--strict',
      CHART,
      ...MONITORING.flatMap((value) => ['--set', value]),
    ]);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
  });

  it('scrapes the gateway and the control plane through their Services and the operator through its pods', async () => {
    const objects = await render(MONITORING);
    const services = objects.filter((object) => object.kind === 'ServiceMonitor');
    expect(services.map((object) => object.metadata.name).sort()).toEqual([
      'ig-inference-gateway-controlplane',
      'ig-inference-gateway-gateway',
    ]);
    for (const service of services) {
      expect(service.spec?.endpoints).toMatchObject([{ port: 'http', path: '/metrics' }]);
      // Each selects its own component's Service, whose port is named `http`.
      const component = service.metadata.name.endsWith('-controlplane') ? 'controlplane' : 'gateway';
      const selector = (service.spec?.selector as { matchLabels?: Record<string, string> } | undefined)
        ?.matchLabels;
      expect(selector).toBeDefined();
      const target = objects.find(
        (object) =>
          object.kind === 'Service' &&
          object.metadata.name.endsWith(`-${component}`) &&
          Object.entries(selector ?? {}).every(([key, value]) => object.metadata.labels?.[key] === value),
      );
      expect(target, component).toBeDefined();
      const ports = (target?.spec?.ports ?? []) as { name: string }[];
      expect(ports.map((port) => port.name)).toContain('http');
    }
    const pods = objects.find((object) => object.kind === 'PodMonitor');
    expect(pods?.spec?.podMetricsEndpoints).toMatchObject([{ port: 'http', path: '/metrics' }]);
  });

  it('ships a valid Grafana dashboard for the sidecar, naming only exported metrics', async () => {
    const objects = await render(MONITORING);
    const configMap = objects.find(
      (object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-dashboard'),
    );
    expect(configMap?.metadata.labels?.grafana_dashboard).toBe('1');
    const dashboard = JSON.parse(configMap?.data?.['inference-gateway.json'] ?? '') as {
      uid: string;
      title: string;
      schemaVersion: number;
      panels: {
        id: number;
        type: string;
        title: string;
        gridPos: object;
        targets: { expr: string; refId: string }[];
      }[];
    };
    expect(dashboard.uid).toBe('inference-gateway');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(30);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) for (const name of metricsIn(target.expr)) used.add(name);
    }
    expect([...used].filter((name) => !names.has(name))).toEqual([]);
    // The dashboard covers what an on-call engineer asks first.
    for (const name of [
      'gateway_requests_total',
      'gateway_request_duration_seconds',
      'gateway_upstream_seconds',
      'gateway_time_to_first_token_seconds',
      'gateway_cache_requests_total',
      'gateway_cost_micros_total',
      'gateway_errors_total',
      'gateway_runtime_store_up',
      'gateway_operator_reconciles_total',
      'gateway_operator_queue_depth',
      'gateway_controlplane_requests_total',
      'gateway_controlplane_request_duration_seconds',
      'gateway_controlplane_errors_total',
    ])
      expect(used).toContain(name);
  });

  it('alerts on what matters, naming only exported metrics', async () => {
    const objects = await render(MONITORING);
    const rule = objects.find((object) => object.kind === 'PrometheusRule');
    const rules = ((rule?.spec?.groups ?? []) as { rules: { alert: string; expr: string }[] }[]).flatMap(
      (group) => group.rules,
    );
    expect(rules.map((entry) => entry.alert)).toEqual(
      expect.arrayContaining([
        'InferenceGatewayHighErrorRatio',
        'InferenceGatewayControlPlaneErrors',
        'InferenceGatewayUpstreamSlow',
        'InferenceGatewayRuntimeStoreDown',
        'InferenceGatewaySpendDropped',
        'InferenceGatewayOperatorReconcileErrors',
        'InferenceGatewayOperatorNoLeader',
      ]),
    );
    const used = rules.flatMap((entry) => metricsIn(entry.expr));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((name) => !names.has(name))).toEqual([]);
  });
});
