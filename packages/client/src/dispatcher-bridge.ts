/**
 * Lets one undici dispatcher (an `Agent`, a `ProxyAgent`, ...) serve both undici's own `fetch` and
 * Node's built-in `fetch`. Node's fetch is an older undici bundled with Node (7.x in Node 24) that
 * calls `dispatch(options, handler)` with the legacy handler (`onConnect`, `onHeaders`, `onData`,
 * `onComplete`, `onError`); dispatchers of undici 8 accept only the controller handler
 * (`onRequestStart`, `onResponseStart`, ...) and throw `UND_ERR_INVALID_ARG` synchronously, before
 * anything is sent. The bridge then dispatches again with the legacy handler adapted; a dispatcher
 * that accepts the handler as it is, and every handler of the newer shape, pass through untouched.
 *
 * Node only: browsers ignore `dispatcher`. Nothing here imports Node: `Buffer` (which Node's fetch
 * expects raw header names and values in) is taken from the global object when a response arrives.
 */

type Callback = (...args: unknown[]) => unknown;
type Handler = Record<string, unknown>;

interface Dispatcher {
  dispatch(options: unknown, handler: Handler): unknown;
}

interface Controller {
  abort(reason?: unknown): void;
  pause(): void;
  resume(): void;
}

interface BufferConstructorLike {
  from(text: string, encoding: 'latin1'): unknown;
}

function isDispatcher(value: unknown): value is Dispatcher {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { dispatch?: unknown }).dispatch === 'function'
  );
}

function call(handler: Handler, name: string, ...args: unknown[]): unknown {
  const method = handler[name];
  return typeof method === 'function' ? (method as Callback).apply(handler, args) : undefined;
}

/** Headers as the controller API gives them (name -> value or values) -> legacy raw header pairs. */
function toRawHeaders(headers: unknown): unknown[] {
  const buffer = (globalThis as { Buffer?: BufferConstructorLike }).Buffer;
  if (buffer === undefined || typeof headers !== 'object' || headers === null) return [];
  const raw: unknown[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      raw.push(buffer.from(name, 'latin1'), buffer.from(String(one), 'latin1'));
    }
  }
  return raw;
}

/** A legacy handler presented as a controller handler: what undici's `WrapHandler` did before undici 8. */
function adaptLegacyHandler(legacy: Handler): Handler {
  return {
    onRequestStart(controller: Controller, context: unknown) {
      call(legacy, 'onConnect', (reason: unknown) => controller.abort(reason), context);
    },
    onRequestUpgrade(_controller: Controller, status: number, headers: unknown, socket: unknown) {
      call(legacy, 'onUpgrade', status, toRawHeaders(headers), socket);
    },
    onResponseStart(controller: Controller, status: number, headers: unknown, statusText: string) {
      call(legacy, 'onResponseStarted');
      const resume = () => controller.resume();
      if (call(legacy, 'onHeaders', status, toRawHeaders(headers), resume, statusText) === false)
        controller.pause();
    },
    onResponseData(controller: Controller, chunk: unknown) {
      if (call(legacy, 'onData', chunk) === false) controller.pause();
    },
    onResponseEnd(_controller: Controller, trailers: unknown) {
      call(legacy, 'onComplete', toRawHeaders(trailers));
    },
    onResponseError(_controller: Controller, error: unknown) {
      call(legacy, 'onError', error);
    },
    onBodySent(chunk: unknown) {
      call(legacy, 'onBodySent', chunk);
    },
  };
}

function isInvalidArgument(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'UND_ERR_INVALID_ARG';
}

const bridges = new WeakMap<object, unknown>();

/**
 * The dispatcher to hand to a fetch implementation: `dispatcher` itself behind a proxy whose
 * `dispatch` adapts legacy handlers when (and only when) the dispatcher refuses them. Anything that
 * is not a dispatcher is returned as it is.
 */
export function bridgeDispatcher(dispatcher: unknown): unknown {
  if (!isDispatcher(dispatcher)) return dispatcher;
  const known = bridges.get(dispatcher);
  if (known !== undefined) return known;
  const dispatch = (options: unknown, handler: Handler): unknown => {
    if (typeof handler?.onRequestStart === 'function') return dispatcher.dispatch(options, handler);
    try {
      return dispatcher.dispatch(options, handler);
    } catch (error) {
      // Refused before anything was sent: try once more with the handler in the newer shape.
      if (!isInvalidArgument(error)) throw error;
      return dispatcher.dispatch(options, adaptLegacyHandler(handler));
    }
  };
  const bridge = new Proxy(dispatcher, {
    get(target, property) {
      if (property === 'dispatch') return dispatch;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as Callback).bind(target) : value;
    },
  });
  bridges.set(dispatcher, bridge);
  return bridge;
}
