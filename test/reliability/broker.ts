/**
 * A queue broker the scenarios drive the real consumer (src/index.ts `queue`) with, so duplicates,
 * crashes and redeliveries happen exactly where a scenario puts them. It keeps the queue's contract:
 * a message is redelivered (attempts + 1) when the consumer retries it, after its `delaySeconds` on a
 * virtual clock (a delayed message waits until every batch in flight has settled and nothing sooner
 * is due, so a 300 s lease costs no wall time); after `maxDeliveries` it goes to the dead-letter
 * queue, which the same worker consumes.
 *
 * A batch that throws (an invocation that dies) is redelivered the way `mode` says:
 * - "production": explicit acks survive, only the rest of the batch comes back (Cloudflare's docs);
 * - "local": the whole batch comes back, acked messages included (miniflare's broker,
 *   /work/shared/reference/toolchain.md §5).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import type { Body } from "../integration/limits-support";

export interface Delivery {
  id: string;
  body: Body;
  attempts: number;
  /** Virtual seconds from the start at which it may be delivered. */
  dueAt: number;
  /**
   * Wall milliseconds after its round starts at which its batch is handed to the consumer: a copy
   * arriving while the round's other batches are mid-job. Redeliveries start with the round.
   */
  startAfterMs?: number;
}

export interface BrokerOptions {
  /** Messages per batch (the test config's max_batch_size is 10). */
  batchSize?: number;
  /** Batches (consumer invocations) in flight at once. */
  parallel?: number;
  mode?: "production" | "local";
  /** Deliveries before the dead-letter queue (max_retries 6 → 7). */
  maxDeliveries?: number;
  /** The env one batch runs with (fault injection); default the test env. */
  envFor?: (batch: { round: number; index: number; messages: readonly Delivery[] }) => Env;
  /** The invocation dies after its handler returned (its acks and retries already given): the batch throws. */
  crashAfter?: (batch: { round: number; index: number; messages: readonly Delivery[] }) => boolean;
  /** Runs alongside each round's batches (e.g. a Durable Object restarted mid-round). */
  duringRound?: (round: number) => Promise<void>;
  /**
   * Wait delays out in real time (a provider's retry-after holds the shared limiter for that long,
   * so an early redelivery would only be handed back again).
   */
  realDelays?: boolean;
  /** Stop after this many rounds even with messages left (a safety net: the scenario then reports them lost). */
  maxRounds?: number;
}

export interface BrokerStats {
  deliveries: number;
  batches: number;
  rounds: number;
  /** Messages the consumer asked to retry. */
  retried: number;
  /** Acked messages a throwing batch brought back ("local" mode only). */
  ackedRedelivered: number;
  /** Batches that threw (crashAfter, or the handler itself). */
  batchesThrown: number;
  deadLettered: number;
  /** Every delaySeconds the consumer asked for. */
  delays: number[];
  /** Jobs the consumer put back on the queue to wait out a retry-after (a new message, the old one acked). */
  deferred: number;
  /** Each hand-back (retry or deferral): wall time it was asked for (ms) and its delay (s). */
  handBacks: { at: number; delaySeconds: number }[];
  /** The longest batch (one consumer invocation), wall milliseconds. */
  maxBatchMs: number;
  /** Messages still queued when maxRounds ran out. */
  stranded: number;
}

/** Fresh deliveries of job bodies (attempts 1, due now), each with its own message id. */
export function deliveries(bodies: readonly Body[], dueAt = 0): Delivery[] {
  return bodies.map((body) => ({ id: `m-${crypto.randomUUID()}`, body, attempts: 1, dueAt }));
}

export async function drain(initial: readonly Delivery[], opts: BrokerOptions = {}): Promise<BrokerStats> {
  const batchSize = opts.batchSize ?? 10;
  const parallel = opts.parallel ?? 4;
  const b = brokerState(initial, opts);
  while (b.queue.length > 0 && b.stats.rounds < (opts.maxRounds ?? 200)) {
    const due = b.queue.filter((d) => d.dueAt <= b.now);
    if (due.length === 0) {
      await b.advance();
      continue;
    }
    const taken = due.slice(0, batchSize * parallel);
    const takenIds = new Set(taken);
    b.queue = b.queue.filter((d) => !takenIds.has(d));
    // Batches never mix start times: a late copy's batch starts late as a whole.
    const starts = [...new Set(taken.map((d) => d.startAfterMs ?? 0))];
    const batches = starts.flatMap((at) =>
      chunk(
        taken.filter((d) => (d.startAfterMs ?? 0) === at),
        batchSize,
      ),
    );
    const round = b.stats.rounds++;
    const [outcomes] = await Promise.all([
      Promise.all(batches.map((messages, index) => runBatch(messages, { round, index, messages }, opts))),
      opts.duringRound?.(round),
    ]);
    for (const [i, out] of outcomes.entries()) b.settle(batches[i]!, out);
    await b.flushDead();
  }
  b.stats.stranded = b.queue.length;
  return b.stats;
}

/**
 * As `drain`, but without rounds: `parallel` invocations are always in flight, and each takes the
 * next due batch as soon as it ends (a backlog on production's scaled-out consumer). Virtual time
 * moves only when nothing is in flight and nothing is due. `duringRound(k)` runs when the k-th
 * group of `parallel` batches starts.
 */
export async function drainPipelined(initial: readonly Delivery[], opts: BrokerOptions = {}): Promise<BrokerStats> {
  const batchSize = opts.batchSize ?? 10;
  const parallel = opts.parallel ?? 4;
  const b = brokerState(initial, opts);
  const hooks: Promise<void>[] = [];
  let inFlight = 0;
  // Workers with nothing due wait for a batch in flight to end (it may bring messages back).
  let waiting: (() => void)[] = [];
  const wake = () => {
    const ws = waiting;
    waiting = [];
    for (const w of ws) w();
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      const due = b.queue.filter((d) => d.dueAt <= b.now).slice(0, batchSize);
      if (due.length === 0) {
        if (b.queue.length === 0 && inFlight === 0) return wake();
        if (inFlight === 0) await b.advance();
        else await new Promise<void>((r) => waiting.push(r));
        continue;
      }
      const takenIds = new Set(due);
      b.queue = b.queue.filter((d) => !takenIds.has(d));
      const index = b.stats.batches + inFlight;
      if (index % parallel === 0 && opts.duringRound) hooks.push(opts.duringRound(index / parallel));
      inFlight++;
      const out = await runBatch(due, { round: Math.floor(index / parallel), index, messages: due }, opts);
      inFlight--;
      b.settle(due, out);
      await b.flushDead();
      wake();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  await Promise.all(hooks);
  b.stats.rounds = Math.ceil(b.stats.batches / parallel);
  b.stats.stranded = b.queue.length;
  return b.stats;
}

/** The queue, the virtual clock and the bookkeeping both drains share. */
function brokerState(initial: readonly Delivery[], opts: BrokerOptions) {
  const maxDeliveries = opts.maxDeliveries ?? 7;
  const dead: Delivery[] = [];
  const b = {
    stats: {
      deliveries: 0,
      batches: 0,
      rounds: 0,
      retried: 0,
      deferred: 0,
      handBacks: [],
      ackedRedelivered: 0,
      batchesThrown: 0,
      deadLettered: 0,
      delays: [],
      stranded: 0,
      maxBatchMs: 0,
    } as BrokerStats,
    queue: [...initial],
    now: 0,
    /** Moves the virtual clock to the next due message (waiting it out in real time with realDelays). */
    async advance() {
      const next = Math.min(...b.queue.map((d) => d.dueAt));
      if (opts.realDelays) await new Promise((r) => setTimeout(r, (next - b.now) * 1000));
      b.now = Math.max(b.now, next);
    },
    /** What happens to each message of a batch that ended: acked, back after its delay, or dead-lettered. */
    settle(messages: readonly Delivery[], out: Awaited<ReturnType<typeof runBatch>>) {
      b.stats.batches++;
      b.stats.maxBatchMs = Math.max(b.stats.maxBatchMs, out.ms);
      b.stats.deliveries += messages.length;
      if (out.threw) b.stats.batchesThrown++;
      b.stats.handBacks.push(...out.handBacks);
      // A job sent back by the consumer (a deferral) is a new message: first delivery, after its delay.
      for (const s of out.sent) {
        b.stats.deferred++;
        b.queue.push({ id: `m-${crypto.randomUUID()}`, body: s.body, attempts: 1, dueAt: b.now + s.delaySeconds });
      }
      for (const m of messages) {
        const retry = out.retried.get(m.id);
        const acked = out.acked.has(m.id);
        if (retry !== undefined) {
          b.stats.retried++;
          b.stats.delays.push(retry);
        }
        let again: number | null = retry ?? null;
        if (out.threw) {
          if (opts.mode === "local") {
            if (acked) b.stats.ackedRedelivered++;
            again = 0;
          } else if (!acked) again = retry ?? 0;
        }
        if (again === null) continue;
        const next = { ...m, attempts: m.attempts + 1, dueAt: b.now + again, startAfterMs: undefined };
        if (next.attempts > maxDeliveries) dead.push(next);
        else b.queue.push(next);
      }
    },
    async flushDead() {
      if (dead.length === 0) return;
      b.stats.deadLettered += dead.length;
      await deadLetter(dead.splice(0));
    },
  };
  return b;
}

async function runBatch(messages: Delivery[], at: Parameters<NonNullable<BrokerOptions["envFor"]>>[0], opts: BrokerOptions) {
  const batch = createMessageBatch(
    "edgeval-jobs",
    messages.map((m) => ({ id: m.id, timestamp: new Date(), attempts: m.attempts, body: m.body })),
  );
  // getQueueResult reports which messages were retried but not their delaySeconds: note them here.
  const delays = new Map<string, number>();
  const handBacks: BrokerStats["handBacks"] = [];
  for (const m of batch.messages) {
    const retry = m.retry.bind(m);
    Object.defineProperty(m, "retry", {
      value: (o?: { delaySeconds?: number }) => {
        delays.set(m.id, o?.delaySeconds ?? 0);
        handBacks.push({ at: Date.now(), delaySeconds: o?.delaySeconds ?? 0 });
        retry(o);
      },
    });
  }
  // The consumer's own sends to the job queue (deferrals) come back through this broker.
  const sent: { body: Body; delaySeconds: number }[] = [];
  const send = (body: Body, o?: { delaySeconds?: number }) => {
    sent.push({ body, delaySeconds: o?.delaySeconds ?? 0 });
    handBacks.push({ at: Date.now(), delaySeconds: o?.delaySeconds ?? 0 });
  };
  const jobs = {
    send: async (body: Body, o?: { delaySeconds?: number }) => send(body, o),
    sendBatch: async (msgs: { body: Body; delaySeconds?: number }[]) => {
      for (const m of msgs) send(m.body, m);
    },
  };
  const ctx = createExecutionContext();
  const startAfter = messages[0]?.startAfterMs ?? 0;
  if (startAfter > 0) await new Promise((r) => setTimeout(r, startAfter));
  let threw = false;
  const started = Date.now();
  try {
    await worker.queue(batch, { ...(opts.envFor?.(at) ?? (env as unknown as Env)), JOBS: jobs as unknown as Queue<unknown> });
  } catch {
    threw = true;
  }
  const ms = Date.now() - started;
  const result = await getQueueResult(batch, ctx);
  if (opts.crashAfter?.(at)) threw = true;
  const retried = new Map(result.retryMessages.map((r) => [r.msgId, delays.get(r.msgId) ?? 0]));
  // An outcome of "ok" with no explicit verdict acks the rest (ackAll is implied by a clean return).
  const acked = new Set<string>(result.explicitAcks);
  if (!threw && !result.retryBatch.retry) for (const m of messages) if (!retried.has(m.id)) acked.add(m.id);
  if (result.retryBatch.retry && !threw)
    for (const m of messages) if (!acked.has(m.id)) retried.set(m.id, result.retryBatch.delaySeconds ?? 0);
  return { threw, acked, retried, ms, sent, handBacks };
}

async function deadLetter(messages: Delivery[]): Promise<void> {
  for (const group of chunk(messages, 10)) {
    const batch = createMessageBatch(
      "edgeval-jobs-dlq",
      group.map((m) => ({ id: m.id, timestamp: new Date(), attempts: 1, body: m.body })),
    );
    await worker.queue(batch, env as unknown as Env);
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
