// A V8 CPU profile of the worker's isolate under `wrangler dev`, taken over the DevTools inspector
// wrangler exposes (the worker and its Durable Objects share that isolate; miniflare's D1/R2/queue
// simulators run in other isolates and are not in it). Used by `bench/throughput --profile FILE` to
// show which of our functions take the shared workerd thread's time.

/** Connects to the first inspector target and starts the sampling profiler. */
export async function startCpuProfile(inspectorPort, { intervalUs = 200 } = {}) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const url = targets[0]?.webSocketDebuggerUrl;
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
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  return {
    /** Stops the profiler and returns the `.cpuprofile` object (open it in Chrome DevTools). */
    async stop() {
      const { profile } = await send("Profiler.stop");
      // The worker's bundle, so that a row's line number can be read as code.
      const scriptId = profile.nodes.find((node) => node.callFrame.url === "index.js")?.callFrame.scriptId;
      let source = "";
      if (scriptId) {
        await send("Debugger.enable");
        source = (await send("Debugger.getScriptSource", { scriptId })).scriptSource;
      }
      ws.close();
      return { profile, source };
    },
  };
}

/** Self time per function (top n) with the first line of its code in the bundle. */
export function summarizeProfile(profile, source = "", n = 25) {
  const lines = source.split("\n");
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const self = new Map();
  for (const [id, count] of counts) {
    const f = byId.get(id).callFrame;
    const file = (f.url || "").split("/").pop();
    const code = file === "index.js" ? (lines[f.lineNumber] ?? "").trim().slice(0, 70) : "";
    const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}${code ? `  ${code}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + count);
  }
  const spanMs = (profile.endTime - profile.startTime) / 1000;
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { total, spanMs, rows: rows.map(([name, count]) => ({ name, ms: (count / total) * spanMs, share: count / total })) };
}
