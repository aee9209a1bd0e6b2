import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerDrain } from './drain.ts';

/** An app with the drain registered and a route that answers when the test releases it. */
function buildApp() {
  const app = Fastify();
  registerDrain(app);
  let release: () => void = () => {};
  const arrived = Promise.withResolvers<void>();
  app.get('/fast', async () => ({ ok: true }));
  app.get('/slow', async () => {
    const { promise, resolve } = Promise.withResolvers<void>();
    release = resolve;
    arrived.resolve();
    await promise;
    return { ok: true };
  });
  return { app, arrived: arrived.promise, release: () => release() };
}

describe('registerDrain', () => {
  it('is not draining until beginDrain, and leaves responses keep-alive until then', async () => {
    const { app } = buildApp();
    expect(app.draining).toBe(false);
    const response = await app.inject({ method: 'GET', url: '/fast' });
    expect(response.headers.connection).not.toBe('close');
    app.beginDrain();
    app.beginDrain();
    expect(app.draining).toBe(true);
    await app.close();
  });

  it('asks the client to close the connection on every response once draining', async () => {
    const { app } = buildApp();
    app.beginDrain();
    const response = await app.inject({ method: 'GET', url: '/fast' });
    expect(response.statusCode).toBe(200);
    expect(response.headers.connection).toBe('close');
    await app.close();
  });

  it('also on a response in progress when the drain began, whose headers were not written yet', async () => {
    const { app, arrived, release } = buildApp();
    const pending = app.inject({ method: 'GET', url: '/slow' });
    await arrived;
    app.beginDrain();
    release();
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(response.headers.connection).toBe('close');
    await app.close();
  });
});
