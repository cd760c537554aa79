/**
 * The export queue's consumer (edge): one builder step per message (build.ts). A step that throws
 * is retried by the queue; on its last delivery the export is marked failed (`kept_failing`: the
 * error is logged, never shown, src/exports/export-failure.ts), so it never stays `building` for good.
 */
import type { Env } from "../env";
import { log } from "../log";
import { buildStep, ExportMessage } from "./build";
import { finishExport, getExport } from "./exports-repo";

export const EXPORT_QUEUE = "edgeval-exports";
/** As max_retries for this queue in wrangler.toml (and vitest.config.ts): deliveries = retries + 1. */
export const EXPORT_MAX_DELIVERIES = 6;

export async function handleExportBatch(
  batch: MessageBatch<unknown>,
  env: Pick<Env, "DB" | "BLOBS" | "EXPORTS">,
  now: () => number = Date.now,
): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = ExportMessage.safeParse(msg.body);
    if (!parsed.success) {
      log.warn("export_message_invalid", { issue: parsed.error.issues[0]?.message });
      msg.ack();
      continue;
    }
    try {
      await buildStep(env, parsed.data, now());
      msg.ack();
    } catch (err) {
      log.warn("export_step_failed", {
        export_id: parsed.data.export_id,
        step: parsed.data.step,
        attempt: msg.attempts,
        error: String(err),
      });
      if (msg.attempts >= EXPORT_MAX_DELIVERIES) {
        const e = await getExport(env.DB, parsed.data.tenant_id, parsed.data.export_id);
        if (e)
          await finishExport(
            env.DB,
            e,
            // The error itself is in the log line above; the user is told the build kept failing and what to do.
            { status: "failed", reason: "kept_failing" },
            new Date(now()).toISOString(),
          );
        msg.ack();
      } else msg.retry();
    }
  }
}
