/**
 * POST /v1/hooks/:trigger_id (src/triggers/README.md): no bearer key — the trigger's signing secret
 * is the credential. Order: read the bytes, find the trigger, verify the signature (nothing has
 * been written yet, so a bad or missing signature leaves no trace), then map the payload and start
 * the run through submitRun, exactly as POST /v1/runs does. A delivery id repeats the first answer.
 */
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../lib/sha256";
import { mapPayload } from "../triggers/mapping";
import { findTrigger, type TriggerRecord, type TriggerSpec, unsealTriggerSecret, verifyingSecrets } from "../triggers/triggers-repo";
import { applyPreset } from "../presets/apply";
import { getPreset } from "../presets/presets-repo";
import { type Verdict, verifyDelivery } from "../triggers/verify";
import { KekMissing, type Sealed } from "../lib/secret-crypto";
import { getTenant } from "../tenants/tenants-repo";
import type { AppEnv } from "./auth";
import { readBytes, unstorable } from "./body";
import { ApiFailure, formatPath, invalidBody, tenantDisabled } from "./errors";
import { statusUrl } from "./runs";
import { RUN_BODY_LIMIT } from "../schemas/body-limits";
import { httpHost, submitRun } from "./submit-run";
import { reply } from "./reply";
import { SubmittedRun } from "../schemas/run-views";
import { HookPing } from "../schemas/trigger-views";
import { refuseUndeclaredQuery } from "./undeclared-query";

export const hooks = new Hono<AppEnv>();

hooks.post("/:trigger_id", async (c) => {
  const bytes = await readBytes(c, RUN_BODY_LIMIT);
  const trigger = await findTrigger(c.env.DB, c.req.param("trigger_id"));
  if (!trigger) throw new ApiFailure({ code: "not_found", message: `no trigger ${c.req.param("trigger_id")}` });
  const verdict = await verifyWithAny(c.env.EDGEVAL_SECRETS_KEK, trigger, c.req.raw.headers, bytes, Date.now());
  if (!verdict.ok) throw new ApiFailure({ code: "unauthorized", message: `the delivery's signature does not verify: ${verdict.reason}` });

  const tenant = await getTenant(c.env.DB, trigger.tenant_id);
  if (!tenant || tenant.disabled) throw tenantDisabled(trigger.tenant_id);
  // The signature is the credential: only a verified delivery learns that a parameter is refused.
  refuseUndeclaredQuery(c);
  // GitHub sends `ping` when a hook is created: a signed hello, not a reason to run anything.
  if (trigger.signing.scheme === "github" && c.req.header("x-github-event") === "ping")
    return reply(c, HookPing, { ping: true, trigger_id: trigger.trigger_id });

  const text = new TextDecoder().decode(bytes);
  const mapped = mapPayload(await withPreset(c.env.DB, trigger), parsePayload(text, c.req.header("content-type")));
  if (!mapped.ok) throw invalidBody(mapped.issues);
  const deliveryId = verdict.delivery_id;
  if (deliveryId !== null && (deliveryId.length === 0 || deliveryId.length > 200)) {
    throw invalidBody([{ path: "header delivery id", message: "a delivery id must be 1 to 200 characters" }]);
  }
  const outcome = await submitRun(httpHost(c), {
    tenant,
    actor: `trigger:${trigger.trigger_id}`,
    raw: mapped.body,
    idempotency: deliveryId ? { key: `hook:${trigger.trigger_id}:${deliveryId}`, body_hash: await sha256Hex(text) } : null,
    question_ids: mapped.question_ids,
  });
  if (outcome.kind === "estimate") throw new ApiFailure({ code: "internal", message: "a trigger never asks for a dry run" });
  return reply(c, SubmittedRun, { run_id: outcome.run_id, status_url: statusUrl(outcome.run_id), warnings: outcome.warnings }, 202);
});

/**
 * The trigger's spec with its preset's config merged in (its own config overriding), read now as
 * every delivery reads it: the mapping places answers into the answering models the run will have,
 * and a preset's manual answering model is one of them.
 */
async function withPreset(db: D1Database, trigger: TriggerRecord): Promise<TriggerSpec> {
  const { preset_id, ...spec } = trigger.spec;
  if (!preset_id) return trigger.spec;
  const applied = await applyPreset({ preset_id, config: spec.config }, (id) => getPreset(db, trigger.tenant_id, id));
  if (!applied.ok) throw invalidBody(applied.issues);
  const merged = MergedConfig.parse(applied.body);
  return { ...spec, config: merged.config };
}

const MergedConfig = z.object({ config: z.record(z.string(), z.unknown()) });

/**
 * The delivery against the trigger's current secret, then, during a rotation's overlap, the one it
 * replaced (a sender not moved over yet). The first refusal's reason is the one reported.
 */
async function verifyWithAny(kek: unknown, trigger: TriggerRecord, headers: Headers, bytes: Uint8Array, nowMs: number): Promise<Verdict> {
  let first: Verdict | undefined;
  for (const sealed of verifyingSecrets(trigger, nowMs)) {
    const verdict = await verifyDelivery(trigger.signing, await secretOf(kek, trigger, sealed), headers, bytes, nowMs);
    if (verdict.ok) return verdict;
    first ??= verdict;
  }
  return first!;
}

async function secretOf(kek: unknown, trigger: TriggerRecord, sealed: Sealed): Promise<string> {
  try {
    return await unsealTriggerSecret(kek, trigger, sealed);
  } catch (err) {
    if (err instanceof KekMissing)
      throw new ApiFailure({ code: "not_configured", message: "triggers need the EDGEVAL_SECRETS_KEK secret" });
    throw err;
  }
}

function parsePayload(text: string, contentType: string | undefined): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // GitHub's webhooks default to a form-encoded body (payload=…): say which setting to change.
    const form = contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded")
      ? " The delivery is application/x-www-form-urlencoded: set the webhook's Content type to application/json (on GitHub: the repository's Settings → Webhooks → Edit)."
      : "";
    throw new ApiFailure({ code: "invalid_json", message: `the payload is not valid JSON: ${(err as Error).message}.${form}` });
  }
  const bad = unstorable(value);
  if (bad) throw invalidBody([{ path: `payload ${formatPath(bad.path)}`, message: bad.message }]);
  return value;
}
