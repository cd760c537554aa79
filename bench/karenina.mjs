#!/usr/bin/env node
// node bench/karenina.mjs — cost of Karenina checkpoint import and of classic templates.
//
// Bundles src/karenina and the Python subset with esbuild (the TS the Worker runs), then times:
//   import   — one template source → edgeval template (importTemplate: @lezer/python parse, static
//              reading of VerifiedField calls, or the subset compile + self.correct for classic).
//   verify   — one result of a classic template: verifyPython on the judge's fields (compiled
//              template cached, as in a run: instantiate, model_post_init, verify()).
//   checkpoint — importCheckpoint of each fixture in test/fixtures/karenina, per question.
// Median and p95 over batches, µs per call, after a warm-up. Prints a table; asserts nothing.
// Target for verify: ≤ 30 µs median per result (the deterministic-verification target).
//
//   node bench/karenina.mjs [--batches N (default 100)]
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { importTs, ROOT, timePerCall } from "./lib/ts-bundle.mjs";

const BATCH = 50;
const batches = Number(process.argv[process.argv.indexOf("--batches") + 1]) || 100;

const VERIFIED = `from karenina.schemas.entities import BaseAnswer, VerifiedField
from karenina.schemas.primitives import BooleanMatch, ContainsAny, NumericTolerance


class Answer(BaseAnswer):
    delivery_mechanism: str = VerifiedField(description="How it delivers", ground_truth="mrna",
        verify_with=ContainsAny(substrings=["mrna", "messenger rna"], normalize=["lowercase"]), weight=2)
    temperature_celsius: float = VerifiedField(description="Storage temperature", ground_truth=-70.0,
        verify_with=NumericTolerance(tolerance=0.5, mode="absolute"))
    mentions_immune_response: bool = VerifiedField(description="Mentions the immune response", ground_truth=True,
        verify_with=BooleanMatch())

    class VerificationStrategy:
        verify_strategy = AnyOf(conditions=[FieldCheck(field="delivery_mechanism"), FieldCheck(field="mentions_immune_response")])
`;

const CLASSIC_SIMPLE = `from karenina.schemas.entities import BaseAnswer
from pydantic import Field

class Answer(BaseAnswer):
    capital: str = Field(description="The capital city name")

    def model_post_init(self, __context):
        self.correct = {"capital": "Paris"}

    def verify(self) -> bool:
        return self.capital.strip().lower() == self.correct["capital"].strip().lower()
`;

const CLASSIC_RICH = `from typing import Any
from pydantic import Field
from karenina.schemas.entities import BaseAnswer


class Answer(BaseAnswer):
    gene_name: str = Field(description="The gene symbol")
    chromosome: str = Field(description="Chromosome location")
    function: str = Field(description="Gene function")
    synonyms: list[str] | None = Field(default=None, description="Alternative symbols")
    omim_id: int | None = Field(default=None, description="OMIM id")

    def model_post_init(self, __context):
        self.correct: dict[str, Any] = {"gene_name": "BCL2", "chromosome": "18q21.33", "function": "Apoptosis regulator",
                                        "synonyms": ["Bcl-2", "BCL2"], "omim_id": 151430}

    def verify(self) -> bool:
        if self.gene_name.upper() != self.correct["gene_name"].upper():
            return False
        if self.chromosome != self.correct["chromosome"]:
            return False
        if self.correct["function"].lower() not in self.function.lower():
            return False
        if self.synonyms is not None:
            if not {s.upper() for s in self.synonyms}.issubset({s.upper() for s in self.correct["synonyms"]}):
                return False
        return self.omim_id is None or self.omim_id == self.correct["omim_id"]

    def verify_granular(self) -> float:
        checks = [self.gene_name.upper() == self.correct["gene_name"], self.chromosome == self.correct["chromosome"]]
        return sum(1 for c in checks if c) / len(checks)
`;

const k = await importTs([
  'export { importTemplate } from "./src/karenina/template-import";',
  'export { Checkpoint, importCheckpoint } from "./src/karenina/import";',
  'export { verifyPython } from "./src/templates/python-subset";',
]);
const time = (fn) => timePerCall(fn, { batch: BATCH, batches, warmupBatches: 10 });
const fmt = (x) => x.toFixed(1).padStart(10);
const line = (cells) => `| ${cells.join(" | ")} |`;
console.log(
  `Karenina import and classic verify, µs per call (median / p95 over ${batches} batches of ${BATCH}); node ${process.version}\n`,
);
console.log(line(["what".padEnd(44), "median".padStart(10), "p95".padStart(10)]));
console.log(line(["-".repeat(44), "-".repeat(10), "-".repeat(10)]));
let sink = 0;
const row = (name, t) => console.log(line([name.padEnd(44), fmt(t.median), fmt(t.p95)]));

for (const [name, src] of [
  ["VerifiedField (3 fields + strategy)", VERIFIED],
  ["classic, one field", CLASSIC_SIMPLE],
  ["classic, 5 fields + granular", CLASSIC_RICH],
]) {
  const r = k.importTemplate(src);
  if (!r.ok) throw new Error(`${name}: ${r.error}`);
  row(
    `import: ${name}`,
    time(() => (sink += k.importTemplate(src).ok ? 1 : 0)),
  );
}
const verifyRows = [];
for (const [name, src, replies] of [
  ["classic, one field", CLASSIC_SIMPLE, [{ capital: " paris " }, { capital: "Lyon" }]],
  [
    "classic, 5 fields + granular",
    CLASSIC_RICH,
    [
      { gene_name: "bcl2", chromosome: "18q21.33", function: "An apoptosis regulator", synonyms: ["bcl-2"], omim_id: null },
      { gene_name: "TP53", chromosome: "17p13.1", function: "tumour suppressor", synonyms: null, omim_id: 191170 },
    ],
  ],
]) {
  const t = time((i) => {
    const out = k.verifyPython({ language: "python", source: src, parsed: replies[i % replies.length], ground_truth: {}, raw_trace: "" });
    sink += out.ok && out.verify_result ? 1 : 0;
  });
  verifyRows.push(t);
  row(`verify: ${name}`, t);
}
const dir = path.join(ROOT, "test/fixtures/karenina");
for (const f of readdirSync(dir).filter((x) => x.startsWith("checkpoint_"))) {
  const json = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
  const n = json.dataFeedElement.length;
  const t = time(() => (sink += k.importCheckpoint(k.Checkpoint.parse(json)).errors.length));
  row(`checkpoint per question: ${f.replace(/^checkpoint_|\.jsonld$/g, "")}`, { median: t.median / n, p95: t.p95 / n });
}
if (Number.isNaN(sink)) throw new Error("unreachable: keeps the work observable");
const worst = Math.max(...verifyRows.map((r) => r.median));
console.log(
  `\nworst classic verify median: ${worst.toFixed(1)} µs per result (target ≤ 30 µs) — ${worst <= 30 ? "within target" : "OVER TARGET"}`,
);
