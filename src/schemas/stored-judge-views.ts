/** What /v1/judges answers (src/http/stored-judges.ts and promptfoo.ts type their bodies by these). */
import { z } from "zod";
import { PriceOverrides } from "./prices";
import { JudgeConfig } from "./judge";
import { PromptfooMapping } from "./stored-judges";

export const StoredJudgeView = z.strictObject({
  judge_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  config: JudgeConfig,
  mapping: PromptfooMapping,
  deadline_ms: z.number().int(),
  prices: PriceOverrides.optional(),
  /** Where promptfoo's webhook assertion posts (add `?token=` with a token of this judge). */
  promptfoo_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const StoredJudgeList = z.strictObject({ judges: z.array(StoredJudgeView), next_cursor: z.string().nullable() });
export const DeletedStoredJudge = z.strictObject({ judge_id: z.string(), deleted: z.literal(true) });

export const JudgeTokenView = z.strictObject({
  token_id: z.string(),
  judge_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  /** Null: the token never expires. */
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
export const JudgeTokenList = z.strictObject({ tokens: z.array(JudgeTokenView), next_cursor: z.string().nullable() });
/** The token in clear, in this answer only (D1 keeps its HMAC). */
export const MintedJudgeToken = JudgeTokenView.extend({ token: z.string(), promptfoo_url: z.string() });

/** promptfoo's webhook contract: a boolean `pass` (anything else is a "Webhook error" there), `score`, `reason`. */
export const PromptfooVerdict = z.strictObject({
  pass: z.boolean(),
  score: z.number().optional(),
  reason: z.string(),
});
