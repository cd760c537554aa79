/**
 * The DAG executor: every unit starts as soon as all of its inputs have finished (a promise per
 * node, chained on its inputs' promises), so independent branches and repeats run concurrently.
 * A unit whose input failed is `skipped`, never guessed. Sampling extractors get a PRNG seeded
 * from the config seed and the unit's call-site id, so the outcome does not depend on which call
 * returns first; a scripted model therefore gives the same outcome on every run.
 */
import type { PromptContext } from "./prompts";
import { TEXT_ONLY } from "./check";
import { emptyUsage, runUnit } from "./units";
import type { JudgeGraph, JudgeNode, JudgePorts, JudgeSampleInput, UnitOutput } from "./types";
import { mulberry32 } from "../lib/random";

export async function execute(graph: JudgeGraph, sample: JudgeSampleInput, ports: JudgePorts): Promise<UnitOutput[]> {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const ancestors = ancestorIds(graph.nodes);
  const done = new Map<string, UnitOutput>();
  const running = new Map<string, Promise<UnitOutput>>();
  for (const n of graph.nodes) {
    const start = Promise.all(n.deps.map((d) => running.get(d)!)).then(async (previous) => {
      if (previous.some((p) => p.status !== "ok")) return skipped(n, previous);
      const anc = graph.nodes.filter((x) => ancestors.get(n.id)!.has(x.id)).map((x) => done.get(x.id)!);
      const named = new Map<string, UnitOutput[]>();
      anc.forEach((o, i) => {
        const node = byId.get(o.id)!;
        for (const key of new Set([node.name, node.base])) named.set(key, [...(named.get(key) ?? []), anc[i]!]);
      });
      const transcript = anc.filter((o) => TEXT_ONLY.includes(byId.get(o.id)!.kind) && byId.get(o.id)!.kind === "conversational");
      const ctx: PromptContext = { sample, previous, named, transcript: n.kind === "pool" ? [] : transcript };
      const rng = ports.rng ?? seeded(graph.seed, n.id);
      return runUnit(n, { ctx, deps: n.deps.map((d) => byId.get(d)!), ports, rng });
    });
    running.set(
      n.id,
      start.then((o) => (done.set(n.id, o), o)),
    );
  }
  return Promise.all(graph.nodes.map((n) => running.get(n.id)!));
}

function skipped(n: JudgeNode, previous: UnitOutput[]): UnitOutput {
  const failed = previous.filter((p) => p.status !== "ok").map((p) => p.name);
  return {
    name: n.name,
    id: n.id,
    type: n.type,
    status: "skipped",
    value: null,
    inputs: previous.map((p) => p.name),
    attempts: 0,
    usage: emptyUsage(),
    error: { kind: "upstream_failed", message: `not run: input ${failed.join(", ")} failed` },
  };
}

export function ancestorIds(nodes: JudgeNode[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const n of nodes) {
    const s = new Set<string>();
    for (const d of n.deps) {
      s.add(d);
      for (const a of out.get(d) ?? []) s.add(a);
    }
    out.set(n.id, s);
  }
  return out;
}

/** mulberry32 seeded by FNV-1a of (seed, call-site id). */
export function seeded(seed: number, id: string): () => number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of id) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return mulberry32(h);
}
