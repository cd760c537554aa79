/** /v1/judges: stored compound judges, their promptfoo tokens, and promptfoo's webhook route (src/stored-judges/README.md). */
import { ListQuery } from "../../schemas/api";
import { JUDGE_BODY_LIMIT, JUDGE_TOKEN_BODY_LIMIT } from "../../schemas/body-limits";
import {
  DeletedStoredJudge,
  JudgeTokenList,
  JudgeTokenView,
  MintedJudgeToken,
  PromptfooVerdict,
  StoredJudgeList,
  StoredJudgeView,
} from "../../schemas/stored-judge-views";
import { CreateJudgeTokenRequest, PromptfooRequest, StoredJudgeRequest } from "../../schemas/stored-judges";
import type { Operation } from "../operation";

const read = { kind: "tenant", scope: "judges:read" } as const;
const write = { kind: "tenant", scope: "judges:write" } as const;
const judgeId = { id: "The judge_id (jdg_…)." };
const example = {
  name: "capital answers",
  config: {
    type: "judge",
    prompt: "Does the answer {{output}} name the same city as the reference {{reference}}? Score 0 (no) to 1 (yes).",
    scale: { type: "continuous", min: 0, max: 1 },
    threshold: 0.5,
    provider: { id: "judge", interface: "openai", model_name: "gpt-4.1-mini" },
  },
  mapping: { reference: "expected" },
};

export const STORED_JUDGE_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/judges",
    operationId: "createStoredJudge",
    tag: "judges",
    summary: "Store a compound judge under an id (for promptfoo)",
    description:
      "The config POST /v1/judge takes, checked the same way, with `mapping` (how promptfoo's test vars become the judge's input, reference and vars; default: input = the prompt, every var under its own name), `deadline_ms` (default 4000: promptfoo waits 5000 ms per attempt) and `prices`.",
    auth: write,
    body: { schema: StoredJudgeRequest, maxBytes: JUDGE_BODY_LIMIT.bytes, example },
    responses: { 201: { description: "The stored judge.", schema: StoredJudgeView } },
  },
  {
    method: "get",
    path: "/v1/judges",
    operationId: "listStoredJudges",
    tag: "judges",
    summary: "The tenant's stored judges, newest first",
    auth: read,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: StoredJudgeList } },
  },
  {
    method: "get",
    path: "/v1/judges/:id",
    operationId: "getStoredJudge",
    tag: "judges",
    summary: "One stored judge",
    auth: read,
    pathParams: judgeId,
    responses: { 200: { description: "The judge.", schema: StoredJudgeView } },
  },
  {
    method: "put",
    path: "/v1/judges/:id",
    operationId: "replaceStoredJudge",
    tag: "judges",
    summary: "Replace a stored judge",
    description: "Its tokens keep working and grade with the new config from their next call.",
    auth: write,
    pathParams: judgeId,
    body: { schema: StoredJudgeRequest, maxBytes: JUDGE_BODY_LIMIT.bytes, example },
    responses: { 200: { description: "The judge as replaced.", schema: StoredJudgeView } },
  },
  {
    method: "delete",
    path: "/v1/judges/:id",
    operationId: "deleteStoredJudge",
    tag: "judges",
    summary: "Delete a stored judge and its tokens",
    auth: write,
    pathParams: judgeId,
    responses: { 200: { description: "Deleted.", schema: DeletedStoredJudge } },
  },
  {
    method: "post",
    path: "/v1/judges/:id/tokens",
    operationId: "createJudgeToken",
    tag: "judges",
    summary: "Mint a promptfoo token for this judge (shown once)",
    description:
      "D1 keeps only the token's HMAC. The token grades with this judge only; revoke it with DELETE /v1/judges/:id/tokens/:token_id. `expires_at` (default: never) ends it by itself; an API key that expires mints no token that outlives it: an `expires_at` past the key's, or `null`, is a 403, and left out the token gets the key's expiry.",
    auth: write,
    pathParams: judgeId,
    body: { schema: CreateJudgeTokenRequest, maxBytes: JUDGE_TOKEN_BODY_LIMIT.bytes, example: { name: "ci" }, optional: true },
    responses: { 201: { description: "The token, in this answer only, and the URL promptfoo posts to.", schema: MintedJudgeToken } },
  },
  {
    method: "get",
    path: "/v1/judges/:id/tokens",
    operationId: "listJudgeTokens",
    tag: "judges",
    summary: "The judge's tokens (never the token itself), newest first",
    auth: read,
    pathParams: judgeId,
    query: ListQuery,
    responses: {
      200: {
        description: "One page of tokens, revoked ones with revoked_at; follow next_cursor until it is null.",
        schema: JudgeTokenList,
      },
    },
  },
  {
    method: "delete",
    path: "/v1/judges/:id/tokens/:token_id",
    operationId: "revokeJudgeToken",
    tag: "judges",
    summary: "Revoke a judge token",
    auth: write,
    pathParams: { ...judgeId, token_id: "The token_id (the 12 hex digits after jt_)." },
    responses: { 200: { description: "The token, revoked: its next call is a 401.", schema: JudgeTokenView } },
  },
  {
    method: "post",
    path: "/v1/judges/:id/promptfoo",
    operationId: "gradeForPromptfoo",
    tag: "judges",
    summary: "promptfoo's webhook assertion: grade one output with the stored judge",
    description:
      "No API key: `?token=` carries a token of this judge. Takes promptfoo's `{output, context: {prompt, vars}}` and answers `{pass, score, reason}` from the judge. A judge that cannot decide (a model kept failing, or its deadline_ms passed) answers 502 judge_undecided, which promptfoo reports as a webhook error — never `pass: false`.",
    auth: { kind: "judgeToken" },
    pathParams: judgeId,
    body: {
      schema: PromptfooRequest,
      maxBytes: JUDGE_BODY_LIMIT.bytes,
      example: {
        output: "Paris",
        context: { prompt: "What is the capital of France?", vars: { question: "What is the capital of France?", expected: "Paris" } },
      },
    },
    responses: {
      200: {
        description: "The judge's verdict, in promptfoo's shape.",
        schema: PromptfooVerdict,
        example: { pass: true, score: 0.9, reason: "judge: 0.9 ≥ threshold 0.5" },
      },
    },
    errors: ["judge_undecided"],
  },
];
