/**
 * Karenina JSON-LD checkpoint → edgeval benchmark (inventory §4).
 *
 * Questions keep the DataFeedItem `@id` as their id. Everything edgeval does not grade with (dates,
 * versions, `finished`, authors, scenarios, …) is kept in `benchmark.karenina`, so an export
 * writes it back. A template that cannot be read is a per-question error: the question stays,
 * without a template (every run fails it with `template_validation`), and its source is kept for
 * export. Problems that lose nothing essential are warnings.
 */
import { z } from "zod";
import { whenMissing } from "../lib/wire-issues";
import type { BenchmarkInput } from "../schemas/benchmark";
import { type RubricInput, TRAIT_KINDS } from "../schemas/rubric";
import { kareninaQuestionId } from "./question-id";
import { importScenarios } from "./scenario-import";
import { importTemplate } from "./template-import";
import { type Rating, ratingToTrait } from "./traits";

export interface ImportIssue {
  path: string;
  question_id?: string;
  message: string;
}

export interface CheckpointImport {
  benchmark: BenchmarkInput;
  warnings: ImportIssue[];
  errors: ImportIssue[];
}

const PropertyValue = z.looseObject({ name: z.string(), value: z.unknown() });
const RatingShape = z.looseObject({ additionalType: z.unknown().optional() });

const QuestionItem = z.looseObject({
  "@id": z.string().optional(),
  // Empty, it failed later as "(imported benchmark) questions[i].question", a path the caller never sent.
  text: z.string({ error: whenMissing("text is required (the question)") }).min(1, { error: "the question text must not be empty" }),
  acceptedAnswer: z.looseObject({ text: z.string().nullish() }).nullish(),
  // A JSON-LD processor may write the @set-typed hasPart as a one-element array.
  hasPart: z.preprocess(
    (v) => (Array.isArray(v) && v.length === 1 ? v[0] : v),
    z.looseObject({ text: z.string().nullish(), name: z.string().nullish() }).nullish(),
  ),
  rating: z.array(RatingShape).nullish(),
  additionalProperty: z.array(PropertyValue).nullish(),
  keywords: z.array(z.string()).nullish(),
});

export const Checkpoint = z.looseObject({
  "@type": z.literal("DataFeed", { error: '@type must be "DataFeed" (a Karenina JSON-LD checkpoint)' }),
  "@id": z.string().optional(),
  name: z.string({ error: whenMissing("name is required") }).min(1),
  rating: z.array(RatingShape).nullish(),
  dataFeedElement: z
    .array(z.looseObject({ "@id": z.string().optional(), item: QuestionItem }))
    .min(1, { error: "a checkpoint needs at least one question (dataFeedElement)" }),
  hasPart: z.array(z.unknown()).nullish(),
  additionalProperty: z.array(PropertyValue).nullish(),
});
export type Checkpoint = z.output<typeof Checkpoint>;

/** Root keys read into the benchmark itself; the rest of the root is kept verbatim. */
const ROOT_READ = new Set(["@context", "@type", "name", "rating", "dataFeedElement", "hasPart", "additionalProperty"]);
const ITEM_READ = new Set(["@type", "text", "acceptedAnswer", "hasPart", "rating", "additionalProperty", "keywords"]);
const FORMAT_VERSION = "benchmark_format_version";

export function importCheckpoint(cp: Checkpoint): CheckpointImport {
  const issues: Issues = { warnings: [], errors: [] };
  const root: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cp)) if (!ROOT_READ.has(k)) root[k] = v;
  const rootProps = (cp.additionalProperty ?? []).filter((p) => p.name !== FORMAT_VERSION);
  const rubric = ratingsToRubric(cp.rating ?? [], "rating", issues.warnings);
  const questionsMeta: Record<string, unknown> = {};
  const questions = cp.dataFeedElement.map((el, i) => {
    const { question, meta } = importQuestion(el, `dataFeedElement[${i}]`, issues);
    if (Object.keys(meta).length) questionsMeta[question.id] = meta;
    return question;
  });

  const karenina: Record<string, unknown> = { ...root };
  if (rootProps.length) karenina.additional_properties = rootProps;
  // Scenarios are kept verbatim for export, and those edgeval can run also become runnable scenarios.
  const scenarios = cp.hasPart?.length ? importScenarios(cp.hasPart) : { scenarios: [], errors: [] };
  if (cp.hasPart?.length) karenina.scenarios = cp.hasPart;
  issues.errors.push(...scenarios.errors);
  if (Object.keys(questionsMeta).length) karenina.questions = questionsMeta;
  const benchmark = {
    name: cp.name,
    ...(rubric ? { rubric } : {}),
    questions,
    ...(scenarios.scenarios.length ? { scenarios: scenarios.scenarios } : {}),
    ...(Object.keys(karenina).length ? { karenina } : {}),
  } as BenchmarkInput;
  return { benchmark, ...issues };
}

interface Issues {
  warnings: ImportIssue[];
  errors: ImportIssue[];
}

/**
 * Two elements with one question id (the same @id, or no @id and the same text, which Karenina's
 * generate_question_id makes one id), named at the checkpoint's elements: the benchmark's own
 * check said "(imported benchmark) questions[5].id", an object the caller never sent.
 */
export function repeatedQuestionIds(questions: readonly { id: string }[]): { path: string; message: string }[] {
  const first = new Map<string, number>();
  const out: { path: string; message: string }[] = [];
  questions.forEach(({ id }, i) => {
    const seen = first.get(id);
    if (seen === undefined) return void first.set(id, i);
    out.push({
      path: `dataFeedElement[${i}]`,
      message: `duplicate question id ${JSON.stringify(id)} (first used by dataFeedElement[${seen}]); give each question its own @id`,
    });
  });
  return out;
}

type Element = Checkpoint["dataFeedElement"][number];
const without = (o: Record<string, unknown>, keys: Set<string>) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.has(k)));
const ELEMENT_READ = new Set(["item", "@id", "@type"]);
const ANSWER_READ = new Set(["text", "@type"]);

/** One DataFeedItem → a question, and what it carries that the question has no field for. */
function importQuestion(el: Element, path: string, issues: Issues) {
  const item = el.item;
  // Karenina keys a question by its DataFeedItem @id, or derives one from the text.
  const id = el["@id"] ?? kareninaQuestionId(item.text);
  const meta: Record<string, unknown> = without(el, ELEMENT_READ);
  const itemExtra = without(item, ITEM_READ);
  if (Object.keys(itemExtra).length) meta.item = itemExtra;
  const answerExtra = item.acceptedAnswer ? without(item.acceptedAnswer, ANSWER_READ) : {};
  if (Object.keys(answerExtra).length) meta.accepted_answer = answerExtra;

  const custom: Record<string, unknown> = {};
  const props: { name: string; value: unknown }[] = [];
  let fewShot: unknown;
  for (const p of item.additionalProperty ?? []) {
    if (p.name.startsWith("custom_")) custom[p.name.slice("custom_".length)] = p.value;
    else if (p.name === "few_shot_examples")
      fewShot = readFewShot(p.value, `${path}.item.additionalProperty.few_shot_examples`, issues.warnings, props, p);
    else props.push({ name: p.name, value: p.value });
  }
  if (props.length) meta.properties = props;
  const template = readTemplate(item.hasPart, id, `${path}.item.hasPart`, meta, issues);
  const rubric = ratingsToRubric(item.rating ?? [], `${path}.item.rating`, issues.warnings, id);
  const question = {
    id,
    question: item.text,
    // Karenina requires an answer text, so "" is how it writes "no raw answer".
    ...(item.acceptedAnswer?.text ? { raw_answer: item.acceptedAnswer.text } : {}),
    ...(item.keywords?.length ? { keywords: item.keywords } : {}),
    ...(fewShot ? { few_shot_examples: fewShot } : {}),
    ...(Object.keys(custom).length ? { custom_metadata: custom } : {}),
    ...(template ? { template } : {}),
    ...(rubric ? { rubric } : {}),
  };
  return { question, meta };
}

/** The question's template, or an error that keeps its source (in `meta`) for export. */
function readTemplate(part: Element["item"]["hasPart"], id: string, path: string, meta: Record<string, unknown>, issues: Issues): unknown {
  if (!part) return undefined;
  const partExtra = without(part, new Set(["text"]));
  if (Object.keys(partExtra).length) meta.template_part = partExtra;
  const source = part.text;
  if (!source || !source.trim()) return undefined;
  const t = importTemplate(source);
  if (t.ok) {
    for (const w of t.warnings) issues.warnings.push({ path: `${path}.text`, question_id: id, message: w });
    for (const field of Object.keys(t.conditional ?? {})) {
      issues.warnings.push({
        path: `${path}.text`,
        question_id: id,
        message: `field ${field}: its ConditionalGroundTruth depends on a scenario; outside one Karenina grades with its default case, and so does edgeval`,
      });
    }
    return t.template;
  }
  meta.template_source = source;
  meta.template_error = t.error;
  issues.errors.push({
    path: `${path}.text`,
    question_id: id,
    message: `template not imported: ${t.error}; the question is kept and fails with template_validation until the template is fixed`,
  });
  return undefined;
}

function readFewShot(
  value: unknown,
  path: string,
  warnings: ImportIssue[],
  props: { name: string; value: unknown }[],
  p: { name: string; value: unknown },
): unknown {
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      v = undefined;
    }
  }
  const ok =
    Array.isArray(v) && v.every((x) => x && typeof x === "object" && typeof x.question === "string" && typeof x.answer === "string");
  if (ok) return (v as { question: string; answer: string }[]).map(({ question, answer }) => ({ question, answer }));
  warnings.push({ path, message: "few_shot_examples is not a list of {question, answer}; kept as a property, not used" });
  props.push({ name: p.name, value: p.value });
  return undefined;
}

function ratingsToRubric(ratings: unknown[], path: string, warnings: ImportIssue[], questionId?: string): RubricInput | undefined {
  const rubric: Record<string, Record<string, unknown>[]> = {};
  const dynamic: Record<string, Record<string, unknown>[]> = {};
  ratings.forEach((r, i) => {
    const t = ratingToTrait(r as Rating);
    const where = { path: `${path}[${i}]`, ...(questionId ? { question_id: questionId } : {}) };
    if (!t.ok) {
      warnings.push({ ...where, message: t.message });
      return;
    }
    if (t.warning) warnings.push({ ...where, message: t.warning });
    if (t.dynamic) (dynamic[t.kind] ??= []).push(t.trait);
    else (rubric[t.kind] ??= []).push(t.trait);
  });
  const hasDynamic = TRAIT_KINDS.some((k) => dynamic[k]?.length);
  if (hasDynamic) (rubric as Record<string, unknown>).dynamic = dynamic;
  return hasDynamic || TRAIT_KINDS.some((k) => rubric[k]?.length) ? (rubric as RubricInput) : undefined;
}
