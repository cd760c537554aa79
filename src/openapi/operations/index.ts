/**
 * Every documented /v1 operation. A route served by the app and missing here fails
 * test/integration/openapi-routes.test.ts, which names it: add it to the file of its resource.
 */
import type { Operation } from "../operation";
import { BENCHMARK_OPERATIONS } from "./benchmarks";
import { JUDGE_OPERATIONS } from "./judge";
import { RESCORE_OPERATIONS } from "./rescore";
import { RESULTS_OUT_OPERATIONS } from "./results-out";
import { RUN_OPERATIONS } from "./runs";
import { TENANT_OPERATIONS } from "./tenant";
import { TRIGGER_OPERATIONS } from "./triggers";
import { PRESET_OPERATIONS } from "./presets";
import { STORED_JUDGE_OPERATIONS } from "./stored-judges";
import { WEBHOOK_OPERATIONS } from "./webhooks";

export const OPERATIONS: readonly Operation[] = [
  ...RUN_OPERATIONS,
  ...RESCORE_OPERATIONS,
  ...RESULTS_OUT_OPERATIONS,
  ...BENCHMARK_OPERATIONS,
  ...JUDGE_OPERATIONS,
  ...STORED_JUDGE_OPERATIONS,
  ...TENANT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...TRIGGER_OPERATIONS,
  ...PRESET_OPERATIONS,
];
