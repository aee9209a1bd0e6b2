import { once } from 'node:events';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayCertificate, trustCertificate } from '../../test/helpers/throwaway-tls.ts';
import { postForm } from './form-post.ts';

describe('postForm', () => {
  let untrust: () => void = () => {};
  const server = createSecureServer({ allowHTTP1: true });
  const sockets: TLSSocket[] = [];
  let url = '';

  beforeAll(async () => {
    const certificate = createThrowawayCertificate();
    untrust = trustCertificate(certificate.cert);
    server.setSecureContext(certificate);
    server.on('request', (request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.once('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ version: request.httpVersion, body }));
      });
    });
    server.on('secureConnection', (socket: TLSSocket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });

  afterAll(async () => {
    untrust();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts in HTTP/1.1 even to a TLS endpoint offering HTTP/2, and closes its connection after the answer', async () => {
    const answer = await postForm('vertex', url, 'grant_type=test&assertion=abc');
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ version: '1.1', body: 'grant_type=test&assertion=abc' });
    expect(sockets).toHaveLength(1);
    const socket = sockets[0]!;
    if (!socket.destroyed) await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
  });
});
