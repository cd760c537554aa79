/**
 * The operations a queue invocation sends its run's coordinator in one `applyBatch` call, and
 * each one's answer. The coordinator defines them (they are its RPC contract); the batcher that
 * coalesces them is src/jobs/coordinator-batcher.ts.
 */
import type { Claim, RecordedResult } from "./rpc-types";

export type CoordinatorOp =
  | { op: "claim"; job_id: string }
  | { op: "saveAnswer"; job_id: string; answer: string }
  | { op: "record"; result: RecordedResult; completesJob: boolean };

/** `cancelled`: the run was cancelled (carried on every answer, so jobs learn it without asking). */
export type CoordinatorOpResult = { ok: true; claim?: Claim; cancelled?: boolean } | { ok: false; error: string };
