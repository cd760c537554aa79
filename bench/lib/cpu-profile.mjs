// A V8 CPU profile of the worker's isolate under `wrangler dev`, taken over the DevTools inspector
// wrangler exposes (the worker and its Durable Objects share that isolate; miniflare's D1/R2/queue
// simulators run in other isolates and are not in it). Used by `bench/throughput --profile FILE` to
// show which of our functions take the shared workerd thread's time.
import { connectInspector } from "./inspector.mjs";

/** Connects to the first inspector target and starts the sampling profiler. */
export async function startCpuProfile(inspectorPort, { intervalUs = 200 } = {}) {
  const { send, close } = await connectInspector(inspectorPort);
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
      close();
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
