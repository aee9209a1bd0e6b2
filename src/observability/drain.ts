/**
 * The drain step of a graceful shutdown, for each of the service's fastify listeners (gateway and
 * control plane). `beginDrain()`, called on SIGTERM while the listener still accepts, turns /readyz
 * to 503 so that load balancers take the process out of rotation; from then on every response whose
 * headers are still to be written carries `connection: close`, so that keep-alive clients, which a
 * connection-level balancer (kube-proxy) keeps pinned to this process, reconnect, and reach another
 * replica once the endpoints are updated. Once the listener closes (`app.close()`), a connection is
 * ended as its response finishes, so that close() completes when the last request or stream does.
 *
 * Registered on the app itself (not encapsulated): its hooks apply to every route.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether the shutdown's drain began: /readyz answers 503 `{status: 'draining'}`. */
    readonly draining: boolean;
    /** Starts the drain (again: no effect). The listener keeps serving until `close()`. */
    beginDrain(): void;
  }
}

/** What /readyz answers, with a 503, while the process drains. */
export const DRAINING_BODY = Object.freeze({ status: 'draining' });

function askToClose(response: ServerResponse): void {
  // Node ends the connection after a response that says so; headers already out cannot change.
  if (!response.headersSent) response.setHeader('connection', 'close');
}

/**
 * The responses in progress, as an intrusive doubly linked list rather than a `Set`: a long-lived
 * `Set` with one add and one delete per request keeps every request's objects alive through young
 * generation GCs. V8 replaces a hash table's backing store when it fills up, and the replaced store
 * keeps its entries and a pointer to its successor; once one replaced store is in old space, every
 * store after it, and every response it ever held with all that response reaches (the request, its
 * upstream call), is promoted before a full GC finds it dead. An unlinked node here points nowhere.
 */
interface InProgress {
  response: ServerResponse | undefined;
  previous: InProgress | undefined;
  next: InProgress | undefined;
}

class InProgressList {
  readonly #head: InProgress = { response: undefined, previous: undefined, next: undefined };

  add(response: ServerResponse): InProgress {
    const node: InProgress = { response, previous: this.#head, next: this.#head.next };
    if (this.#head.next !== undefined) this.#head.next.previous = node;
    this.#head.next = node;
    return node;
  }

  remove(node: InProgress): void {
    // Removed already (by clear()): its neighbours are no longer its neighbours.
    if (node.previous === undefined) return;
    node.previous.next = node.next;
    if (node.next !== undefined) node.next.previous = node.previous;
    node.response = node.previous = node.next = undefined;
  }

  /** Every response still listed, each unlinked as it is handed out. */
  *drain(): Generator<ServerResponse> {
    for (let node = this.#head.next; node !== undefined; ) {
      const { next, response } = node;
      node.response = node.previous = node.next = undefined;
      if (response !== undefined) yield response;
      node = next;
    }
    this.#head.next = undefined;
  }
}

export function registerDrain(app: FastifyInstance): void {
  let draining = false;
  let closing = false;
  // Responses in progress whose headers may not be written yet (a stream waiting for the upstream's
  // first byte, a JSON answer waiting for its body): they must say `connection: close` too.
  const inProgress = new InProgressList();

  app.decorate('draining', {
    getter: () => draining,
  });
  app.decorate('beginDrain', () => {
    if (draining) return;
    draining = true;
    for (const response of inProgress.drain()) askToClose(response);
  });

  app.addHook('onRequest', (_request, reply, done) => {
    const response = reply.raw;
    if (draining) {
      askToClose(response);
    } else {
      const node = inProgress.add(response);
      response.once('close', () => inProgress.remove(node));
    }
    done();
  });

  // A connection busy when the listener closed stays open after its response if that response
  // went out as keep-alive (its headers were written before the drain): end it then.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if (closing) request.raw.socket?.end();
    done();
  });
}
