// A DevTools protocol session with the worker's isolate (the worker and its Durable Objects share
// that isolate; miniflare's D1/R2/queue simulators run in other isolates). The local stack's
// inspector port is workerd's own, which lists every isolate (scripts/lib/local-runtime.mjs), or
// under `wrangler dev` wrangler's inspector proxy, which lists only the worker's.

/** The worker's isolate among workerd's inspector targets (wrangler.toml `name`); its Durable Objects run in it. */
export const OUR_TARGET = "core:user:edgeval";

/** Connects to the worker's inspector target: `send(method, params)` → the result; `close()`. */
export async function connectInspector(inspectorPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const url = (targets.find((t) => t.id === OUR_TARGET) ?? targets[0])?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  // `ws` (miniflare installs it): wrangler's inspector proxy refuses the upgrade of Node 22's own
  // WebSocket (undici: "non-101 status code"), and Node 20 has none without a flag.
  const WebSocketImpl = (await import("ws")).WebSocket;
  const ws = new WebSocketImpl(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), { once: true });
  });
  let nextId = 1;
  const pending = new Map();
  ws.addEventListener("message", (ev) => {
    const msg = JSON.parse(String(ev.data));
    const waiter = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`${msg.error.message}`));
    else waiter.resolve(msg.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}
