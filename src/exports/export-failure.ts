/**
 * Why an export failed: a code stored in `exports.error`, and what a user is told about it (pure).
 * The builder's own error (a stack, an R2 key with the tenant's id, a D1 message) goes to the log
 * only: the code says what failed in the user's terms, and the message what to do about it.
 * Rows written before the codes hold raw error text; they read as `unknown` and are never shown.
 */
import { type ExportFailure, ExportFailureReason } from "../schemas/results-out-views";

export type { ExportFailure };

/** Every reason's words, in one table: what failed, then what to do. */
const MESSAGES: Record<ExportFailure, string> = {
  run_deleted: "The run was deleted while this export was being built, so there is nothing left to export.",
  stored_data_missing:
    "Some of the run's stored results could not be read back, so the file would have been incomplete. Start the export again; if it fails the same way, contact the operator of this edgeval deployment and give them the export id.",
  kept_failing:
    "Building the file failed several times in a row (a temporary storage or queue problem on the server). Start the export again in a few minutes; if it keeps failing, export fewer results with a filter, or contact the operator of this edgeval deployment and give them the export id.",
  unknown:
    "Building the file failed. Start the export again; if it keeps failing, contact the operator of this edgeval deployment and give them the export id.",
};

/** A failed export's stored `error` as its reason (anything else, such as a row's old raw text: `unknown`). */
export function exportFailureOf(stored: string | null): ExportFailure {
  const parsed = ExportFailureReason.safeParse(stored);
  return parsed.success ? parsed.data : "unknown";
}

export function exportFailureMessage(reason: ExportFailure): string {
  return MESSAGES[reason];
}
