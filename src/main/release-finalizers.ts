/**
 * `<cli> operator release-finalizers`: with the operator gone, lets stuck deletions finish. Every
 * Tenant, CachePolicy, Connection and ModelRoute already being deleted loses the operator's
 * finalizer; objects not being deleted are left alone, so running it beside a live operator
 * changes nothing it would not redo. The cluster comes from KUBECONFIG (or ~/.kube/config, or the in-cluster account).
 */
import { FINALIZER } from '../operator/controller-support.ts';
import { releaseFinalizers } from '../resources/kubernetes-finalizers.ts';
import { KubeTransport, loadKubeConfig } from '../resources/kubernetes-transport.ts';

export async function runReleaseFinalizers(): Promise<void> {
  const transport = new KubeTransport(loadKubeConfig(), {
    userAgent: 'inference-gateway-release-finalizers',
  });
  try {
    const released = await releaseFinalizers(transport, FINALIZER);
    for (const object of released) {
      const where = object.namespace === undefined ? '' : `${object.namespace}/`;
      process.stdout.write(`released ${object.kind} ${where}${object.name}\n`);
    }
    process.stdout.write(
      `${released.length} finalizer${released.length === 1 ? '' : 's'} ${FINALIZER} released\n`,
    );
  } finally {
    await transport.close();
  }
}
