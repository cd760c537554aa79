/**
 * Wire shapes of /v1/judges (src/stored-judges/README.md): a compound-judge config stored under an
 * id, its promptfoo mapping and deadline, its tokens, and the body promptfoo's `webhook` assertion
 * sends to POST /v1/judges/:id/promptfoo.
 */
import { z } from "zod";
import { ExpiresAt } from "./tenants";
import { PriceOverrides } from "./prices";
import { DeadlineMs, JudgeConfig } from "./judge";
import { whenMissing } from "../lib/wire-issues";

/**
 * promptfoo's WEBHOOK_TIMEOUT is 5,000 ms per attempt and a timeout is not retried: answering
 * within 4,000 ms leaves a second for the network and the verdict to arrive.
 */
export const DEFAULT_PROMPTFOO_DEADLINE_MS = 4_000;

const VarName = z.string().min(1, { error: "a var name must not be empty" }).max(200);

/**
 * How promptfoo's `context` becomes the judge's sample. `output` is always promptfoo's output;
 * `input` is its rendered prompt unless `input` names a var; `reference` names the var that holds
 * the reference; `vars` maps judge var → promptfoo var (absent: every var under its own name).
 */
export const PromptfooMapping = z.strictObject({
  input: VarName.optional(),
  reference: VarName.optional(),
  vars: z
    .record(
      z.string().regex(/^[A-Za-z_]\w*$/, { error: "a judge var name is letters, digits and _ (it is used as {{vars.NAME}})" }),
      VarName,
    )
    .optional(),
});
export type PromptfooMapping = z.output<typeof PromptfooMapping>;

export const StoredJudgeRequest = z.strictObject({
  name: z
    .string({ error: whenMissing("name is required") })
    .min(1)
    .max(200),
  description: z.string().max(2000).nullish(),
  /** The same config POST /v1/judge takes. */
  config: JudgeConfig,
  mapping: PromptfooMapping.default({}),
  /** Past it the judge answers 502 (undecided), never a fail. */
  deadline_ms: DeadlineMs(DEFAULT_PROMPTFOO_DEADLINE_MS),
  prices: PriceOverrides.optional(),
});
export type StoredJudgeRequest = z.output<typeof StoredJudgeRequest>;

export const CreateJudgeTokenRequest = z.strictObject({
  name: z.string().min(1).max(200).default("promptfoo"),
  /** After it the token is refused (401 that says so); absent or null: it never expires. */
  expires_at: ExpiresAt,
});

const JsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/**
 * What promptfoo's `webhook` assertion POSTs: `{output, context: {prompt, vars}}` (loose: a later
 * promptfoo adding fields must not break grading). `output` is text, or the provider's JSON.
 */
export const PromptfooRequest = z.looseObject({
  output: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: "output (the text promptfoo's provider produced) is required",
  }),
  context: z
    .looseObject({
      prompt: z.string().default(""),
      vars: z.record(z.string(), JsonValue).default({}),
    })
    .default({ prompt: "", vars: {} }),
});
export type PromptfooRequest = z.output<typeof PromptfooRequest>;
