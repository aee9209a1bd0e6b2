import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type KubeControlPlane,
  kubeAvailable,
  startKubeControlPlane,
} from '../../helpers/kube-control-plane.ts';

const available = kubeAvailable();

describe.runIf(available)('the test control plane', () => {
  let plane: KubeControlPlane;
  beforeAll(async () => {
    plane = await startKubeControlPlane();
  }, 120_000);
  afterAll(async () => {
    await plane?.stop();
  });

  it('serves the API over TLS with the generated CA and admin token', async () => {
    const version = await plane.request('GET', '/version');
    expect(version.status).toBe(200);
    expect((version.body as { gitVersion: string }).gitVersion).toMatch(/^v1\.34\./);
  });

  it('refuses an unknown token', async () => {
    const response = await fetch(`${plane.server}/api/v1/namespaces`, {
      headers: { authorization: 'Bearer nope' },
      dispatcher: plane.dispatcher,
    });
    expect(response.status).toBe(401);
  });
});
