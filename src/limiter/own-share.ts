/**
 * A run's `limits` bound only the run's own share (issue 16): its calls take a lease from a
 * limiter of their own (named for the run) and then from the key's shared limiter, which never
 * sees the run's limits and learns only from the provider's signals (429s, retry-after). Before,
 * the run's limits were written into the shared limiter, so one run with `{rpm: 1}` slowed every
 * other run and tenant on that key.
 *
 * A call holds both leases and releases both with the same report. When the shared limiter
 * refuses, the own lease is given back at once (the run waits as the shared limiter says).
 */
import type { LimiterClient } from "./limited";

const SEP = "|";

export function withOwnShare(own: LimiterClient, shared: LimiterClient): LimiterClient {
  return {
    async acquire(tokens, since) {
      const mine = await own.acquire(tokens, since);
      if (!mine.granted) return mine;
      const theirs = await shared.acquire(tokens, since).catch(async (e: unknown) => {
        await own.release({ lease_id: mine.lease_id }).catch(() => undefined);
        throw e;
      });
      if (!theirs.granted) {
        await own.release({ lease_id: mine.lease_id });
        return theirs;
      }
      return { granted: true, lease_id: `${mine.lease_id}${SEP}${theirs.lease_id}` };
    },
    async release(report) {
      const at = report.lease_id.indexOf(SEP);
      const mine = report.lease_id.slice(0, at);
      const theirs = report.lease_id.slice(at + 1);
      await Promise.all([own.release({ ...report, lease_id: mine }), shared.release({ ...report, lease_id: theirs })]);
    },
  };
}
