/**
 * The run's `meta` rows: what init stored about the run (ids, budget, manifest, webhook endpoints)
 * and the flags the run collects (started, cancelled_at, finished_at, spent_usd, unpriced, run_event). Only
 * the coordinator writes them, so they are mirrored in memory on first read (every claim and record
 * reads the budget and the run's flags; as SQL that was most of a record's cost). A rolled-back
 * transaction drops the mirror (`forget`). JSON values are parsed with zod on read, never cast.
 */
import { z } from "zod";
import { DEFAULT_TENANT, type RunRef } from "../storage/r2-keys";
import { StoredRunManifest } from "../schemas/run-views";
import type { RunManifest } from "./manifest";
import type { ShardPlan } from "./shards";

const Plan = z.strictObject({
  count: z.number().int().min(1),
  per_shard: z.number().int().min(1),
  dims: z.strictObject({ questions: z.number().int(), answering: z.number().int(), replicates: z.number().int() }),
}) satisfies z.ZodType<ShardPlan>;

const Ids = z.array(z.string());

export class RunMeta {
  private cache: Map<string, string> | undefined;

  constructor(private readonly sql: SqlStorage) {}

  get(k: string): string | undefined {
    this.cache ??= new Map(
      this.sql
        .exec<{ k: string; v: string }>("SELECT k, v FROM meta")
        .toArray()
        .map((r) => [r.k, r.v]),
    );
    return this.cache.get(k);
  }

  set(k: string, v: string): void {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, v);
    this.cache?.set(k, v);
  }

  /** The rows may have changed behind the mirror (a rolled-back transaction, a purge): reload on next use. */
  forget(): void {
    this.cache = undefined;
  }

  runId(): string | undefined {
    return this.get("run_id");
  }

  tenantId(): string {
    return this.get("tenant_id") ?? DEFAULT_TENANT;
  }

  runRef(): RunRef {
    return { run_id: this.get("run_id")!, tenant_id: this.get("tenant_id") };
  }

  answeringIds(): string[] {
    return Ids.parse(JSON.parse(this.get("answering_ids")!));
  }

  parsingIds(): string[] {
    return Ids.parse(JSON.parse(this.get("parsing_ids")!));
  }

  resultsPerPair(): number {
    return Number(this.get("results_per_pair"));
  }

  /** Results the run will have: pairs × questions × replicates. */
  totalResults(): number {
    return this.answeringIds().length * this.parsingIds().length * this.resultsPerPair();
  }

  started(): boolean {
    return this.get("started") === "1";
  }

  finishedAt(): string | undefined {
    return this.get("finished_at");
  }

  budgetUsd(): number | undefined {
    const budget = this.get("budget_usd");
    return budget === undefined ? undefined : Number(budget);
  }

  /** The running total of recorded cost (record adds each new usage row's cost once). */
  spentUsd(): number {
    return Number(this.get("spent_usd") ?? "0");
  }

  addSpent(usd: number): void {
    if (usd > 0) this.set("spent_usd", String(this.spentUsd() + usd));
  }

  /** A call of a model without a price was recorded: the run's cost is unknown (null), as its usage totals say. */
  hasUnpriced(): boolean {
    return this.get("unpriced") === "1";
  }

  markUnpriced(): void {
    if (!this.hasUnpriced()) this.set("unpriced", "1");
  }

  manifest(): RunManifest | null {
    const json = this.get("manifest");
    return json ? StoredRunManifest.parse(JSON.parse(json)) : null;
  }

  webhookEndpointIds(): string[] {
    return Ids.parse(JSON.parse(this.get("webhook_endpoint_ids") ?? "[]"));
  }

  /** A sharded run's plan (shards.ts), in its root; null for a run that fits one coordinator, and in a shard. */
  shardPlan(): ShardPlan | null {
    const json = this.get("shards");
    return json ? Plan.parse(JSON.parse(json)) : null;
  }

  /** An endpoint took result.created when the run was submitted: each new result goes to the outbox. */
  resultEvents(): boolean {
    return this.get("result_events") === "1";
  }
}
