/**
 * The operator's reconciles are traced: a span per reconcile, named by the kind, with the object's
 * name, exported over OTLP/HTTP to a real receiver (against the real test API server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import { startTracing, type Tracing } from '../../../src/observability/tracing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import {
  type OperatorTestBed,
  operatorSuitesAvailable,
  startOperatorTestBed,
  tenant,
} from './operator-test-bed.ts';

describe.runIf(operatorSuitesAvailable())('reconcile traces', () => {
  let bed: OperatorTestBed;
  let receiver: OtlpReceiver;
  let tracing: Tracing;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = await startTracing(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
      'operator',
      createLogger('silent', 'tracing'),
    );
    bed = await startOperatorTestBed();
    await bed.startOperator({ tracing });
  });
  afterAll(async () => {
    await bed?.close();
    await tracing?.shutdown();
    await receiver?.stop();
  });

  it('exports a span per reconcile, with the kind and the object', async () => {
    await bed.applyTenant(tenant('traced'));
    const spans = await receiver.waitFor((all) =>
      all.some(
        (span) => span.name === 'reconcile Tenant' && span.attributes['k8s.resource.name'] === 'traced',
      ),
    );
    const span = spans.find(
      (candidate) => candidate.attributes['k8s.resource.name'] === 'traced',
    ) as ReceivedSpan;
    expect(span.attributes['k8s.resource.kind']).toBe('Tenant');
    expect(span.statusCode).not.toBe(2);
    expect(span.resource['inference_gateway.role']).toBe('operator');
  });
});
