/**
 * An OTLP/HTTP trace sink for the benchmarks (a child process, like a collector beside the
 * gateway): accepts POST /v1/traces, reads and counts the payloads, answers 200. Prints
 * `{"port":N}` once it listens on 127.0.0.1, and its totals on SIGTERM.
 */
import { createServer } from 'node:http';
import './child-guard.ts';

let payloads = 0;
let bytes = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    payloads += 1;
    // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
    const json = String(request.headers['content-type']).includes('json');
    response
      .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
      .end(json ? '{}' : '');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => {
  process.stderr.write(`otlp sink: ${payloads} payloads, ${bytes} bytes\n`);
  server.close(() => process.exit(0));
});
