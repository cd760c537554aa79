/** /v1/judge: one output graded by a compound judge; calibration against human labels. */
import { CalibrateRequest, JudgeRequest } from "../../schemas/judge";
import { CalibrationReport, JudgeOutcome } from "../../schemas/judge-outcome";
import { CALIBRATE_BODY_LIMIT, JUDGE_BODY_LIMIT } from "../../schemas/body-limits";
import { EXAMPLE_JUDGE_REQUEST } from "../examples";
import type { Operation } from "../operation";

export const JUDGE_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/judge",
    operationId: "judge",
    tag: "judge",
    summary: "Grade one output with a compound judge, synchronously",
    description:
      "`config` is a judge in the Verdict spec's shapes (one unit, or a pipeline of layers and pools) with `provider` as every unit's default model. The whole graph is checked before any call. A judge whose model keeps failing answers `pass: null` with `error`: the judge failing is not the output failing.",
    auth: { kind: "tenant", scope: "judge" },
    body: { schema: JudgeRequest, maxBytes: JUDGE_BODY_LIMIT.bytes, example: EXAMPLE_JUDGE_REQUEST },
    responses: { 200: { description: "The verdict, per-unit outputs, usage and cost.", schema: JudgeOutcome } },
  },
  {
    method: "post",
    path: "/v1/judge/calibrate",
    operationId: "calibrateJudge",
    tag: "judge",
    summary: "How far a judge agrees with human labels",
    auth: { kind: "tenant", scope: "judge" },
    body: { schema: CalibrateRequest, maxBytes: CALIBRATE_BODY_LIMIT.bytes },
    responses: { 200: { description: "Agreement statistics and per-item verdicts.", schema: CalibrationReport } },
  },
];
