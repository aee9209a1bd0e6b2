import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazySchemaController } from './fastify-schema-compilers.ts';

describe('lazySchemaController', () => {
  it('still validates request bodies and serialises responses for a route that declares schemas', async () => {
    const app = Fastify({ schemaController: lazySchemaController });
    app.post(
      '/echo',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          response: { 200: { type: 'object', properties: { greeting: { type: 'string' } } } },
        },
      },
      async (request) => ({ greeting: `hello ${(request.body as { name: string }).name}`, extra: 'dropped' }),
    );
    const refused = await app.inject({ method: 'POST', url: '/echo', payload: { nom: 'x' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain("must have required property 'name'");
    const served = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'ada' } });
    expect(served.statusCode).toBe(200);
    // The response schema's serializer ran: the field it does not list is gone.
    expect(served.body).toBe('{"greeting":"hello ada"}');
    await app.close();
  });
});
