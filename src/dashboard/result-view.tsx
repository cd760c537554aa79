/**
 * The result page's sections, drawn from a stored result (src/schemas/result.ts): the answer with
 * the deep-judgment excerpts marked where they occur, the template's field-level verdicts, the
 * rubric's scores, each compound trait's judge graph as SVG, and the failure in words. A judge that
 * failed shows as "judge failed", never as a "no".
 */
import { type Verdict, verdictOf } from "../pipeline/verdict";
import { FAILURE_GROUP, type FailureCategory, type VerificationResult, type VerificationResultInput } from "../schemas/result";
import { ColumnHeads } from "./ui";

type Excerpt = { text: string; confidence?: string };

export interface Segment {
  text: string;
  /** The attributes or traits whose excerpts cover this text; absent for unmarked text. */
  marks?: string[];
}

/**
 * Splits `answer` into marked and unmarked runs: every exact occurrence of every excerpt (by
 * attribute or trait) is marked; overlapping excerpts share a run. Excerpts that do not occur
 * verbatim are returned apart, so the page can say so rather than mark the wrong text.
 */
export function highlightExcerpts(answer: string, byName: Record<string, readonly Excerpt[]>): { segments: Segment[]; missing: { name: string; text: string }[] } {
  const cover: Set<string>[] = Array.from({ length: answer.length }, () => new Set());
  const missing: { name: string; text: string }[] = [];
  for (const [name, excerpts] of Object.entries(byName)) {
    for (const e of excerpts) {
      const needle = e.text.trim();
      if (!needle) continue;
      let at = answer.indexOf(needle);
      if (at < 0) missing.push({ name, text: needle });
      for (; at >= 0; at = answer.indexOf(needle, at + needle.length)) {
        for (let i = at; i < at + needle.length; i++) cover[i]!.add(name);
      }
    }
  }
  const segments: Segment[] = [];
  const key = (s: Set<string>) => [...s].sort().join("\u0000");
  for (let i = 0; i < answer.length; ) {
    let j = i + 1;
    while (j < answer.length && key(cover[j]!) === key(cover[i]!)) j++;
    const names = [...cover[i]!].sort();
    segments.push(names.length ? { text: answer.slice(i, j), marks: names } : { text: answer.slice(i, j) });
    i = j;
  }
  return { segments, missing };
}

export function HighlightedAnswer(props: { answer: string; excerpts: Record<string, readonly Excerpt[]> }) {
  const { segments, missing } = highlightExcerpts(props.answer, props.excerpts);
  const marked = segments.some((s) => s.marks);
  return (
    <>
      {marked && <p id="answer-legend">Marked: the excerpts deep judgment quoted as evidence (hover or focus a mark for the attribute or trait).</p>}
      <pre id="answer">
        {segments.map((s) =>
          s.marks ? (
            <mark class="excerpt" title={s.marks.join(", ")} data-for={s.marks.join(" ")}>
              {s.text}
            </mark>
          ) : (
            s.text
          ),
        )}
      </pre>
      {missing.length > 0 && (
        <>
          <p>Excerpts not found verbatim in the answer:</p>
          <ul id="excerpts-missing">
            {missing.map((m) => (
              <li>
                <strong>{m.name}</strong>: {m.text}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

const show = (v: unknown) => (v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
const verdictWord = (v: boolean | null | undefined) => (v === true ? "pass" : v === false ? "fail" : "judge failed");
const verdictClass = (v: boolean | null | undefined) => (v === true ? "verdict-pass" : v === false ? "verdict-fail" : "verdict-error");

type Template = NonNullable<VerificationResultInput["template"]>;

/** Per template field: what the judge parsed, what was expected, and the field's verdict and score. */
export function FieldVerdicts(props: { template: Template }) {
  const t = props.template;
  const fields = Object.keys(t.field_results ?? {});
  if (fields.length === 0) return <p>No field-level verdicts (the template's check did not run per field).</p>;
  return (
    <table id="field-verdicts">
      <caption>Template fields{t.field_verification_error ? `: ${t.field_verification_error}` : ""}</caption>
      <ColumnHeads names={["Field", "Parsed from the answer", "Expected", "Verdict", "Score"]} />
      <tbody>
        {fields.map((f) => {
          const v = t.field_results?.[f];
          const score = t.field_scores?.[f];
          return (
            <tr>
              <th scope="row">{f}</th>
              <td>{show(t.parsed_llm_response?.[f])}</td>
              <td>{show(t.parsed_gt_response?.[f])}</td>
              <td class={verdictClass(v)}>{verdictWord(v)}</td>
              <td>{score === null || score === undefined ? "—" : score.toFixed(3)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Rubric = NonNullable<VerificationResultInput["rubric"]>;

/** Every trait's score, one row each, by kind; metric traits one row per metric. */
export function rubricRows(r: Rubric): { trait: string; kind: string; score: string; label?: string }[] {
  const rows: { trait: string; kind: string; score: string; label?: string }[] = [];
  const scored = (kind: string, scores: Record<string, number | boolean | null> | null | undefined, labels?: Record<string, string> | null) => {
    for (const [trait, s] of Object.entries(scores ?? {})) {
      rows.push({ trait, kind, score: s === null ? "judge failed" : typeof s === "boolean" ? (s ? "yes" : "no") : String(s), ...(labels?.[trait] ? { label: labels[trait] } : {}) });
    }
  };
  scored("llm", r.llm_trait_scores, r.llm_trait_labels);
  scored("regex", r.regex_trait_scores);
  scored("callable", r.callable_trait_scores);
  scored("agentic", r.agentic_trait_scores);
  scored("compound", r.compound_trait_scores);
  for (const [trait, metrics] of Object.entries(r.metric_trait_scores ?? {})) {
    for (const [metric, v] of Object.entries(metrics)) rows.push({ trait: `${trait} (${metric})`, kind: "metric", score: v.toFixed(3) });
  }
  return rows;
}

export function RubricScores(props: { rubric: Rubric }) {
  const rows = rubricRows(props.rubric);
  if (rows.length === 0) return <p>No rubric traits were scored.</p>;
  return (
    <table id="rubric-scores">
      <caption>Rubric traits</caption>
      <ColumnHeads names={["Trait", "Kind", "Score", "Label"]} />
      <tbody>
        {rows.map((r) => (
          <tr>
            <th scope="row">{r.trait}</th>
            <td>{r.kind}</td>
            <td class={r.score === "judge failed" ? "verdict-error" : undefined}>{r.score}</td>
            <td>{r.label ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The units of a compound trait's trace (src/judges/types.ts UnitOutput), the parts drawn. */
export interface GraphUnit {
  id: string;
  name: string;
  type: string;
  status: string;
  value: number | null;
  inputs: string[];
}

/** Units by id and by name: a unit's `inputs` name the units it read (src/judges/executor.ts). */
const unitIndex = (units: readonly GraphUnit[]) => new Map(units.flatMap((u) => [[u.name, u] as const, [u.id, u] as const]));

/** Columns by depth: a unit sits one column right of the deepest unit it reads. */
export function layoutGraph(units: readonly GraphUnit[]): { unit: GraphUnit; col: number; row: number }[] {
  const byId = unitIndex(units);
  const depth = new Map<string, number>();
  const depthOf = (u: GraphUnit, seen: Set<string>): number => {
    const known = depth.get(u.id);
    if (known !== undefined) return known;
    if (seen.has(u.id)) return 0; // a cycle cannot come out of the graph builder; never loop on one
    seen.add(u.id);
    const inputs = u.inputs.map((i) => byId.get(i)).filter((x): x is GraphUnit => x !== undefined);
    const d = inputs.length ? 1 + Math.max(...inputs.map((i) => depthOf(i, seen))) : 0;
    depth.set(u.id, d);
    return d;
  };
  const rows = new Map<number, number>();
  return units.map((unit) => {
    const col = depthOf(unit, new Set());
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    return { unit, col, row };
  });
}

const BOX_W = 170;
const BOX_H = 46;
const GAP_X = 60;
const GAP_Y = 16;

/** A compound trait's judge graph: a box per unit (name, type, value or status), an arrow per input. */
export function JudgeGraphSvg(props: { trait: string; units: readonly GraphUnit[]; pass: boolean | null; score: number | null }) {
  const placed = layoutGraph(props.units);
  const index = unitIndex(props.units);
  const at = new Map(placed.map((p) => [p.unit, { x: p.col * (BOX_W + GAP_X) + 4, y: p.row * (BOX_H + GAP_Y) + 4 }]));
  const w = Math.max(...placed.map((p) => p.col)) * (BOX_W + GAP_X) + BOX_W + 8;
  const h = (Math.max(...placed.map((p) => p.row)) + 1) * (BOX_H + GAP_Y) + 8;
  const id = `graph-${props.trait.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const summary = `${props.trait}: ${props.units.length} units; ${props.pass === null ? "the judge failed" : props.pass ? "pass" : "fail"}${props.score === null ? "" : `, score ${props.score}`}`;
  return (
    <svg class="judge-graph" id={id} role="img" aria-labelledby={`${id}-title ${id}-desc`} viewBox={`0 0 ${w} ${h}`} width={w} height={h}>
      <title id={`${id}-title`}>Judge graph of {props.trait}</title>
      <desc id={`${id}-desc`}>
        {summary}. {placed.map((p) => `${p.unit.name} (${p.unit.type}) ${p.unit.status}${p.unit.inputs.length ? ` reads ${p.unit.inputs.map((i) => index.get(i)?.name ?? i).join(", ")}` : ""}`).join("; ")}
      </desc>
      {placed.flatMap((p) =>
        p.unit.inputs.map((input) => {
          const source = index.get(input);
          const from = source && at.get(source);
          const to = at.get(p.unit)!;
          return from ? <line class="edge" x1={from.x + BOX_W} y1={from.y + BOX_H / 2} x2={to.x} y2={to.y + BOX_H / 2} /> : null;
        }),
      )}
      {placed.map((p) => {
        const { x, y } = at.get(p.unit)!;
        return (
          <g class={`unit unit-${p.unit.status}`} data-unit={p.unit.name}>
            <rect x={x} y={y} width={BOX_W} height={BOX_H} rx={4} />
            <text x={x + 8} y={y + 18}>
              {p.unit.name}
            </text>
            <text x={x + 8} y={y + 36}>
              {`${p.unit.type}: ${p.unit.status === "ok" ? (p.unit.value === null ? "ok" : String(Math.round(p.unit.value * 1000) / 1000)) : p.unit.status}`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** The failure as a sentence: category, the stage it happened in, and why. */
export function FailureReason(props: { failure: { category: string; stage: string; reason: string; group?: string } }) {
  const f = props.failure;
  return (
    <p id="failure-reason">
      <strong>{f.category}</strong>
      {f.group ? ` (${f.group})` : ""} at stage <code>{f.stage}</code>: {f.reason}
    </p>
  );
}

/** What each verdict says about the answer, written under the result's heading. */
const VERDICT_MEANINGS: Record<Verdict, string> = {
  pass: "the answer was graded and passed.",
  fail: "the answer was graded and did not pass.",
  error: "the judge or a model call failed, so the answer was not graded; this says nothing about the answer.",
  no_verdict: "a rubric-only result: its trait scores are the outcome.",
};

/** The verdict the run's counts use (verdictOf), with the failure's group from its category when a stored result lacks it. */
export function resultVerdict(r: VerificationResultInput): Verdict {
  const f = r.metadata.failure;
  const failure = f ? { ...f, group: f.group ?? FAILURE_GROUP[f.category as FailureCategory] } : f;
  return verdictOf({ ...r, metadata: { ...r.metadata, failure } } as VerificationResult);
}

/** The page's first line: the verdict the run's counts use, and what it says about the answer. */
export function VerdictLine(props: { verdict: Verdict }) {
  return (
    <p id="verdict">
      Verdict: <strong class={`verdict-${props.verdict}`}>{props.verdict}</strong>: {VERDICT_MEANINGS[props.verdict]}
    </p>
  );
}
