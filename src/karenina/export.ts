/**
 * edgeval benchmark → Karenina JSON-LD checkpoint (format 3.0.0-jsonld). Writes back what the
 * import kept in `benchmark.karenina`, so import(export(import(f))) equals import(f).
 */
import type { Benchmark } from "../schemas/benchmark";
import { exportTemplate, templateExportProblem } from "./template-export";
import { rubricToRatings } from "./traits";

export const CHECKPOINT_CONTEXT = {
  "@version": 1.1,
  "@vocab": "https://schema.org/",
  karenina: "urn:karenina:vocab:",
  dataFeedElement: { "@id": "dataFeedElement", "@container": "@set" },
  item: { "@id": "item", "@type": "@id" },
  acceptedAnswer: { "@id": "acceptedAnswer", "@type": "@id" },
  rating: { "@id": "contentRating", "@container": "@set" },
  additionalProperty: { "@id": "additionalProperty", "@container": "@set" },
  hasPart: { "@id": "hasPart", "@container": "@set" },
  keywords: { "@id": "keywords", "@container": "@set" },
};

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

export interface CheckpointExport {
  checkpoint: Obj;
  warnings: string[];
}

export function exportCheckpoint(b: Benchmark, benchmarkId: string, now: string): CheckpointExport {
  const warnings: string[] = [];
  const k = obj(b.karenina);
  const { additional_properties, scenarios, questions: questionsMeta, ...root } = k;
  const qMeta = obj(questionsMeta);
  const checkpoint: Obj = {
    "@context": CHECKPOINT_CONTEXT,
    "@type": "DataFeed",
    "@id": `urn:edgeval:benchmark:${benchmarkId}`,
    dateCreated: now,
    dateModified: now,
    ...root,
    name: b.name,
  };
  const ratings = rubricToRatings(b.rubric, "Global", warnings);
  if (ratings.length) checkpoint.rating = ratings;
  checkpoint.dataFeedElement = b.questions.map((q) => questionElement(q, obj(qMeta[q.id]), now, warnings));
  if (Array.isArray(scenarios) && scenarios.length) checkpoint.hasPart = scenarios;
  // Scenarios are written back as the checkpoint had them; one written natively has no checkpoint form yet.
  const kept = new Set((Array.isArray(scenarios) ? scenarios : []).map((s) => obj(s).name));
  for (const s of b.scenarios ?? []) {
    if (!kept.has(s.name))
      warnings.push(`scenario "${s.name}" is not exported: edgeval writes back only the scenarios a checkpoint brought`);
  }
  checkpoint.additionalProperty = [
    { "@type": "PropertyValue", name: "benchmark_format_version", value: "3.0.0-jsonld" },
    ...(Array.isArray(additional_properties) ? additional_properties : []),
  ];
  return { checkpoint, warnings };
}

function questionElement(q: Benchmark["questions"][number], meta: Obj, now: string, warnings: string[]): Obj {
  const { item: itemExtra, accepted_answer, properties, template_part, template_source, template_error: _error, ...elementExtra } = meta;
  const item: Obj = { "@type": "Question", ...obj(itemExtra), text: q.question };
  item.acceptedAnswer = { "@type": "Answer", ...obj(accepted_answer), text: q.raw_answer ?? "" };
  let source: string | null = typeof template_source === "string" ? template_source : null;
  if (q.template) {
    source = exportTemplate(q.template);
    if (source === null) warnings.push(`question ${q.id}: ${templateExportProblem(q.template)}; exported without a template`);
  }
  // Karenina's loader requires hasPart (name, text) and acceptedAnswer.text: empty when absent.
  item.hasPart = {
    "@type": "SoftwareSourceCode",
    name: `${q.question.slice(0, 30)}... Answer Template`,
    programmingLanguage: "Python",
    ...obj(template_part),
    text: source ?? "",
  };
  const ratings = rubricToRatings(q.rubric, "QuestionSpecific", warnings, `question ${q.id}`);
  if (ratings.length) item.rating = ratings;
  const props: Obj[] = Array.isArray(properties) ? (properties as Obj[]).map((p) => ({ "@type": "PropertyValue", ...p })) : [];
  if (q.few_shot_examples?.length)
    props.push({ "@type": "PropertyValue", name: "few_shot_examples", value: JSON.stringify(q.few_shot_examples) });
  for (const [key, value] of Object.entries(q.custom_metadata ?? {}))
    props.push({ "@type": "PropertyValue", name: `custom_${key}`, value });
  if (props.length) item.additionalProperty = props;
  if (q.keywords?.length) item.keywords = q.keywords;
  return { "@type": "DataFeedItem", "@id": q.id, dateCreated: now, dateModified: now, ...elementExtra, item };
}
