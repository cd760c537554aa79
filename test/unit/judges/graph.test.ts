import { describe, expect, it } from "vitest";
import { buildGraph, estimateCalls } from "../../../src/judges/graph";
import type { JudgeGraph } from "../../../src/judges/types";
import { JudgeConfig } from "../../../src/schemas/judge";
import { testModel } from "../../support/judge-port";

const provider = testModel();
const judge = (name: string) => ({ type: "judge", name, prompt: "Rate it" });

function graph(raw: unknown): JudgeGraph {
  const built = buildGraph(JudgeConfig.parse(raw));
  if ("issues" in built) throw new Error(JSON.stringify(built.issues));
  return built.graph;
}
function issues(raw: unknown) {
  const built = buildGraph(JudgeConfig.parse(raw));
  return "issues" in built ? built.issues : [];
}
/** Edges between layer 0 and layer 1 as "from→to" by instance name. */
function edges(g: JudgeGraph): string[] {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  return g.nodes.flatMap((n) => n.deps.map((d) => `${byId.get(d)!.name}→${n.name}`));
}
const twoLayers = (outer: string, a: number, b: number, extra: object = {}) => ({
  provider,
  pipeline: [
    { layer: { unit: judge("a"), repeat: a, outer, ...extra } },
    { layer: { unit: { ...judge("b"), type: "judge" }, repeat: b } },
    { type: "mean-pool" },
  ],
});
const firstEdges = (g: JudgeGraph) => edges(g).filter((e) => e.includes("→b"));

describe("graph: connection patterns", () => {
  it("dense connects every unit of a layer to every unit of the next (2 → 2: four edges)", () => {
    expect(firstEdges(graph(twoLayers("dense", 2, 2)))).toEqual(["a[0]→b[0]", "a[1]→b[0]", "a[0]→b[1]", "a[1]→b[1]"]);
  });

  it("broadcast connects unit i to unit i (3 → 3: three edges) and refuses unequal sizes with the layer's path", () => {
    expect(firstEdges(graph(twoLayers("broadcast", 3, 3)))).toEqual(["a[0]→b[0]", "a[1]→b[1]", "a[2]→b[2]"]);
    expect(issues(twoLayers("broadcast", 3, 2))).toEqual([
      expect.objectContaining({ path: "pipeline[0].layer.outer", message: expect.stringContaining("same size (here 3 → 2)") }),
    ]);
  });

  it("cumulative gives unit j of the next layer units 0..j (2 → 2: A→C, A→D, B→D)", () => {
    expect(firstEdges(graph(twoLayers("cumulative", 2, 2)))).toEqual(["a[0]→b[0]", "a[0]→b[1]", "a[1]→b[1]"]);
  });

  it("cumulative with unequal sizes is refused naming the sizes (3 → 2 would leave a[2]'s paid call unread)", () => {
    // Verdict's Layer.link (verdict/core/primitive.py:628) wires cumulative only when the sizes match
    // and otherwise falls through to dense; its docs (docs/concept/layer.md:95) say "next Layer must
    // have same length". edgeval refuses instead of silently changing the pattern.
    expect(issues(twoLayers("cumulative", 3, 2))).toEqual([
      expect.objectContaining({ path: "pipeline[0].layer.outer", message: expect.stringContaining("same size (here 3 → 2") }),
    ]);
    expect(issues(twoLayers("cumulative", 2, 3))[0]!.message).toContain("here 2 → 3");
  });

  // Verdict's Layer picks leaf/root nodes with operator.itemgetter(*idx)(self.order) (verdict/core/primitive.py:672-676),
  // so -1 is the last unit; outer='last' is with_leaf(-1) (primitive.py:558).
  it("leaf and root take Python-style negative indices (-1 is the last unit); out of range either way is refused", () => {
    expect(firstEdges(graph(twoLayers("dense", 3, 2, { leaf: [-1] })))).toEqual(["a[2]→b[0]", "a[2]→b[1]"]);
    expect(firstEdges(graph(twoLayers("dense", 3, 2, { leaf: [0, -2] })))).toEqual(["a[0]→b[0]", "a[1]→b[0]", "a[0]→b[1]", "a[1]→b[1]"]);
    expect(issues(twoLayers("dense", 3, 2, { leaf: [-4] }))).toEqual([
      expect.objectContaining({ path: "pipeline[0].layer.leaf", message: "index -4 is outside the layer's 3 units (0..2, or -1..-3)" }),
    ]);
  });

  // Verdict: Layer([judge >> verify], repeat) repeats a Block, each copy its own judge→verify chain
  // (verdict/common/ensemble_verify.py:79, `Layer([self.hierarchical_protocol], repeat=self.repeat) >> MaxPoolUnit()`).
  it("a block layer repeats a sub-pipeline: three independent judge→verify pairs, the verifiers feeding the pool", () => {
    const g = graph({
      provider,
      pipeline: [
        {
          layer: {
            block: [
              { type: "categorical", name: "judge", categories: ["yes", "no"], explanation: true },
              { type: "verify", name: "verify" },
            ],
            repeat: 3,
          },
        },
        { type: "max-pool" },
      ],
    });
    expect(edges(g)).toEqual([
      "judge[0]→verify[0]",
      "judge[1]→verify[1]",
      "judge[2]→verify[2]",
      "verify[0]→max-pool",
      "verify[1]→max-pool",
      "verify[2]→max-pool",
    ]);
    // The previous layer feeds each repeat's first step; leaf / root index repeats of the block.
    const fed = graph({
      provider,
      pipeline: [
        { type: "cot" },
        { layer: { block: [judge("j"), { type: "verify", name: "v" }], repeat: 2, leaf: [-1] } },
        { type: "mean" },
      ],
    });
    expect(edges(fed)).toEqual(["cot→j[0]", "j[0]→v[0]", "cot→j[1]", "j[1]→v[1]", "v[1]→mean"]);
    expect(issues({ provider, pipeline: [{ layer: { block: [judge("j")], units: [judge("k")] } }] })[0]).toMatchObject({
      path: "pipeline[0].layer.block",
      message: expect.stringContaining("one of unit, units or block"),
    });
    expect(issues({ provider, pipeline: [{ layer: { block: [judge("j")], inner: "chain" } }] })[0]).toMatchObject({
      path: "pipeline[0].layer.inner",
    });
  });

  it("last connects only the last unit, to every unit of the next layer", () => {
    expect(firstEdges(graph(twoLayers("last", 3, 2)))).toEqual(["a[2]→b[0]", "a[2]→b[1]"]);
  });

  it("inner chain links each unit to the next inside the layer; inner none adds no edge", () => {
    const chain = graph({ provider, pipeline: [{ layer: { unit: judge("a"), repeat: 3, inner: "chain" } }, { type: "max-pool" }] });
    expect(edges(chain).filter((e) => !e.includes("max-pool"))).toEqual(["a[0]→a[1]", "a[1]→a[2]"]);
    const none = graph({ provider, pipeline: [{ layer: { unit: judge("a"), repeat: 3 } }, { type: "max-pool" }] });
    expect(edges(none)).toEqual(["a[0]→max-pool", "a[1]→max-pool", "a[2]→max-pool"]);
  });

  it("leaf and root select which units connect (Verdict's debate: opponents 1, 3, 5 broadcast to three judges)", () => {
    const g = graph({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "debate-for", name: "pro" },
              { type: "debate-against", name: "con" },
            ],
            repeat: 3,
            inner: "chain",
            outer: "broadcast",
            leaf: [1, 3, 5],
          },
        },
        { layer: { unit: { type: "judge", name: "j", prompt: "Who won?", categories: ["good", "bad"] }, repeat: 3 } },
        { type: "max-pool" },
      ],
    });
    const e = edges(g);
    expect(e.filter((x) => x.includes("→pro") || x.includes("→con"))).toEqual([
      "pro[0]→con[0]",
      "con[0]→pro[1]",
      "pro[1]→con[1]",
      "con[1]→pro[2]",
      "pro[2]→con[2]",
    ]);
    expect(e.filter((x) => x.includes("→j"))).toEqual(["con[0]→j[0]", "con[1]→j[1]", "con[2]→j[2]"]);
    const rooted = graph({
      provider,
      pipeline: [{ layer: { unit: judge("a"), repeat: 2 } }, { layer: { unit: judge("b"), repeat: 2, root: [1] } }, { type: "mean" }],
    });
    expect(edges(rooted).filter((x) => x.includes("→b"))).toEqual(["a[0]→b[1]", "a[1]→b[1]"]);
  });

  it("a debate layer takes turns (chain) by default; an ensemble does not", () => {
    const g = graph({
      provider,
      pipeline: [
        { layer: { units: [{ type: "debate-for" }, { type: "debate-against" }], repeat: 2 } },
        { type: "judge", prompt: "Good?", categories: ["yes", "no"] },
      ],
    });
    expect(edges(g).filter((e) => e.startsWith("debate") && e.includes("→debate"))).toHaveLength(3);
  });
});

describe("graph: names, ids and validation before any call", () => {
  it("repeated units are separate instances with stable call-site ids (unit path + repeat index)", () => {
    const g = graph({ provider, pipeline: [{ layer: { unit: judge("a"), repeat: 2 } }, { type: "max-pool" }] });
    expect(g.nodes.map((n) => [n.id, n.name])).toEqual([
      ["pipeline[0].layer.unit#0", "a[0]"],
      ["pipeline[0].layer.unit#1", "a[1]"],
      ["pipeline[1]#0", "max-pool"],
    ]);
    expect(g.roots).toEqual(["pipeline[1]#0"]);
  });

  it("a declared name used twice is refused at the second unit's name", () => {
    expect(issues({ provider, pipeline: [{ layer: { units: [judge("x"), judge("x")] } }, { type: "mean" }] })).toEqual([
      { path: "pipeline[0].layer.units[1].name", message: 'unit name "x" is used twice; names must be unique' },
    ]);
  });

  it("default names get a suffix so they stay unique", () => {
    const g = graph({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "judge", prompt: "p" },
              { type: "judge", prompt: "q" },
            ],
          },
        },
        { type: "mean" },
      ],
    });
    expect(g.nodes.map((n) => n.name)).toEqual(["judge", "judge_2", "mean"]);
  });

  it("reports every problem with its path: unknown placeholder, missing provider, misplaced field, weights, text-only root", () => {
    const found = issues({
      pipeline: [
        {
          layer: {
            units: [
              { type: "judge", name: "acc", prompt: "{{outptu}}" },
              { type: "pairwise", name: "pw", categories: ["a", "b"] },
            ],
          },
        },
        { type: "weighted-mean", weights: { acc: 1, nope: 2 } },
        { type: "cot" },
      ],
    });
    const paths = found.map((i) => i.path);
    expect(paths).toContain("pipeline[0].layer.units[0].prompt");
    expect(paths).toContain("pipeline[0].layer.units[0].provider");
    expect(paths).toContain("pipeline[0].layer.units[1].categories");
    expect(paths).toContain("pipeline[1].weights");
    expect(paths).toContain("pipeline[1].weights.nope");
    expect(paths).toContain("pipeline[2]");
  });

  it("{{previous.NAME.field}} must name a unit that runs before; verify cannot come first", () => {
    const found = issues({ provider, pipeline: [{ type: "verify", prompt: "{{previous.ghost.explanation}}" }] });
    expect(found.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('no unit "ghost" runs before'),
        expect.stringContaining("cannot be in the first layer"),
      ]),
    );
  });

  it("extractors must fit the unit: token-probability needs a discrete scale and no explanation; regex needs numbers", () => {
    const bad = (unit: object) => issues({ provider, ...unit });
    expect(bad({ type: "judge", scale: { type: "continuous", min: 0, max: 1 }, extractor: { type: "token-probability" } })[0]!.path).toBe(
      "config.extractor",
    );
    expect(bad({ type: "judge", explanation: true, extractor: { type: "token-probability" } })[0]!.path).toBe("config.explanation");
    expect(bad({ type: "categorical", categories: ["yes", "no"], extractor: { type: "regex", pattern: "first_int" } })[0]!.path).toBe(
      "config.extractor",
    );
  });

  it("a categorical pass_value must be one of its labels; verify inherits the judged scale and passing label", () => {
    expect(issues({ provider, type: "categorical", categories: ["yes", "no"], pass_value: "maybe" })[0]!.path).toBe("config.pass_value");
    const g = graph({
      provider,
      pipeline: [{ type: "categorical", name: "c", categories: ["yes", "no"], pass_value: "no", explanation: true }, { type: "verify" }],
    });
    const v = g.nodes[1]!;
    expect([v.scale!.values, v.passValue]).toEqual([["yes", "no"], "no"]);
  });

  it("default threshold is the midpoint of the root's range; a pool's or the config's threshold wins", () => {
    expect(graph({ provider, type: "likert", scale: [1, 5] }).threshold).toBe(3);
    expect(graph({ provider, type: "categorical", categories: ["yes", "no"] }).threshold).toBe(0.5);
    expect(
      graph({ provider, pipeline: [{ layer: { unit: judge("a"), repeat: 3 } }, { type: "max-pool", threshold: 3.5 }] }).threshold,
    ).toBe(3.5);
    expect(graph({ provider, type: "likert", threshold: 4 }).threshold).toBe(4);
  });

  it("a threshold no score can reach or miss is refused: the verdict would not depend on the answer", () => {
    // Before 8 Dec threshold 5 on a 0..1 scale was taken, and every output failed.
    expect(issues({ provider, type: "judge", scale: { type: "continuous", min: 0, max: 1 }, threshold: 5 })).toEqual([
      { path: "config.threshold", message: "threshold 5 is above every score this judge can give (0..1): every output would fail" },
    ]);
    expect(issues({ provider, type: "likert", threshold: 0 })).toEqual([
      { path: "config.threshold", message: "threshold 0 is below every score this judge can give (1..5): every output would pass" },
    ]);
    expect(issues({ provider, pipeline: [{ layer: { unit: judge("a"), repeat: 3 } }, { type: "mean-pool", threshold: 7 }] })).toEqual([
      { path: "pipeline[1].threshold", message: expect.stringContaining("threshold 7 is above every score") },
    ]);
    expect(issues({ provider, threshold: -1, pipeline: [judge("a"), { type: "mean-pool" }] })).toEqual([
      { path: "threshold", message: expect.stringContaining("threshold -1 is below every score") },
    ]);
    // The ends of the range are thresholds a score can meet.
    expect(graph({ provider, type: "likert", threshold: 5 }).threshold).toBe(5);
    expect(graph({ provider, type: "likert", threshold: 1 }).threshold).toBe(1);
  });

  it("with pipeline, single-unit fields at the top level and thresholds before the last step are refused", () => {
    const found = issues({ provider, scale: [1, 5], pipeline: [{ type: "judge", threshold: 3 }, { type: "mean" }] });
    expect(found).toEqual([
      { path: "scale", message: "scale describes a single unit; with pipeline, set it on the unit" },
      { path: "pipeline[0].threshold", message: "threshold applies to the last step only (pass ⇔ final score ≥ threshold)" },
    ]);
  });

  it("estimates the model calls a run plans: swap and post-hoc count twice, pools and maps not at all", () => {
    const g = graph({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "pairwise", swap: true, options: ["a", "b"] },
              { type: "judge", extractor: { type: "post-hoc" } },
              { type: "judge" },
            ],
            repeat: 2,
          },
        },
        { type: "mean" },
      ],
    });
    expect(estimateCalls(g)).toBe(2 * (2 + 2 + 1));
  });

  it("the last layer's leaf selection picks the roots that make the score", () => {
    const g = graph({ provider, pipeline: [{ layer: { units: [judge("a"), judge("b")], repeat: 2, leaf: [1, 3] } }] });
    expect(g.roots).toEqual(["pipeline[0].layer.units[1]#0", "pipeline[0].layer.units[1]#1"]);
  });

  it("pass_value on a numeric scale is refused: a score passes by threshold", () => {
    expect(issues({ provider, type: "likert", pass_value: 5 })).toEqual([
      { path: "config.pass_value", message: "pass_value applies to labels; a numeric score passes by threshold" },
    ]);
  });

  it("a manual model cannot judge", () => {
    const manual = { interface: "manual", manual_answers: { q: "a" } };
    expect(issues({ provider: manual, type: "likert" })).toEqual([
      { path: "config.provider", message: 'a judge needs a model that answers; interface "manual" cannot judge' },
    ]);
  });
});
