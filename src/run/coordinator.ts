import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/** One per run: spec reference, job states, counters. (Skeleton; filled in by the run layer.) */
export class RunCoordinator extends DurableObject<Env> {
  async ping(): Promise<string> {
    return "pong";
  }
}
