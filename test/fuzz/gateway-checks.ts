/**
 * What every answer of the gateway must satisfy, whatever was sent: no 5xx (the fake upstream
 * answers 200 at once, so none can be an upstream's), no secret in a header or the body, and on
 * an error the one envelope with a code (DESIGN section 5).
 */
import type { FuzzAnswer, FuzzGateway, FuzzRequest } from './fuzz-gateway.ts';

/** The request, short enough to read in a failure report. */
export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : typeof request.body === 'string'
        ? request.body
        : `<${request.body.length} bytes: ${Buffer.from(request.body).toString('hex').slice(0, 80)}>`;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value,
    ]),
  );
  return `${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(headers)} ${body.length > 600 ? `${body.slice(0, 600)}…(${body.length} chars)` : body}`;
}

function fail(request: FuzzRequest, answer: FuzzAnswer, problem: string): never {
  throw new Error(
    `${problem}\n  request: ${describeRequest(request)}\n  answer: ${answer.status} ${answer.text.slice(0, 600)}`,
  );
}

/** The error envelope: `{"error": {code, message, type}}`, and `"type": "error"` on /v1/messages. */
function checkEnvelope(request: FuzzRequest, answer: FuzzAnswer): void {
  let body: { type?: unknown; error?: { code?: unknown; message?: unknown; type?: unknown } };
  try {
    body = JSON.parse(answer.text);
  } catch {
    fail(request, answer, 'an error answer that is not JSON');
  }
  const error = body.error;
  if (
    typeof error !== 'object' ||
    error === null ||
    typeof error.code !== 'string' ||
    typeof error.message !== 'string' ||
    typeof error.type !== 'string'
  ) {
    fail(request, answer, 'an error answer without the envelope {"error": {code, message, type}}');
  }
  if (request.path.startsWith('/v1/messages') && body.type !== 'error')
    fail(request, answer, 'an error on /v1/messages without "type": "error"');
}

export async function sendAndCheck(fuzz: FuzzGateway, request: FuzzRequest): Promise<FuzzAnswer> {
  const answer = await fuzz.send(request);
  if (answer.status >= 500) fail(request, answer, `a ${answer.status} from the gateway's own code`);
  const leaked = fuzz.leakedSecret(answer);
  if (leaked !== undefined) fail(request, answer, `the ${leaked} appears in the answer`);
  // 431 (headers too large) is Node's HTTP parser answering before the gateway sees the request.
  if (answer.status >= 400 && answer.status !== 431 && request.path.startsWith('/v1/'))
    checkEnvelope(request, answer);
  return answer;
}
