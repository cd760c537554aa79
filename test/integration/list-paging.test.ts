/**
 * The tenant-scoped lists that used to answer every row at once (GET /v1/judges, /v1/presets,
 * /v1/triggers, /v1/schedules) page as GET /v1/runs and /v1/benchmarks do: `?limit=&cursor=`,
 * newest first with the id breaking ties, `next_cursor` null on the last page. One contract, run
 * against each list; each tenant sees only its own rows.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, type TestTenant } from "./tenant-helpers";

interface Listed {
  id: string;
  created_at: string;
}

interface ListCase {
  path: string;
  /** The array's name in the answer. */
  field: string;
  idField: string;
  create: (key: string, benchmarkId: string, n: number) => Promise<Listed>;
}

const judgeModel = uniqueModel("paging-judge");
const config = () => ({
  answering_models: [{ id: "m", interface: "manual", manual_answers: { fr: "Paris" } }],
  parsing_models: [fakeModel("j", judgeModel)],
});

async function created(res: Response, idField: string): Promise<Listed> {
  expect(res.status, await res.clone().text()).toBe(201);
  const body = (await res.json()) as Record<string, string>;
  return { id: body[idField]!, created_at: body.created_at! };
}

const CASES: ListCase[] = [
  {
    path: "/v1/judges",
    field: "judges",
    idField: "judge_id",
    create: async (key, _b, n) => {
      const judge = {
        name: `judge ${n}`,
        config: {
          type: "judge",
          prompt: "Does the answer name the reference city?",
          scale: { type: "continuous", min: 0, max: 1 },
          threshold: 0.5,
          provider: fakeModel("j", judgeModel),
        },
      };
      return created(await apiAs(key, "/v1/judges", { method: "POST", json: judge }), "judge_id");
    },
  },
  {
    path: "/v1/presets",
    field: "presets",
    idField: "preset_id",
    create: async (key, _b, n) =>
      created(await apiAs(key, "/v1/presets", { method: "POST", json: { name: `preset ${n}`, config: config() } }), "preset_id"),
  },
  {
    path: "/v1/triggers",
    field: "triggers",
    idField: "trigger_id",
    create: async (key, benchmarkId, n) =>
      created(
        await apiAs(key, "/v1/triggers", {
          method: "POST",
          json: { name: `trigger ${n}`, benchmark_id: benchmarkId, config: config(), signing: { scheme: "github" } },
        }),
        "trigger_id",
      ),
  },
  {
    path: "/v1/schedules",
    field: "schedules",
    idField: "schedule_id",
    create: async (key, benchmarkId, n) =>
      created(
        await apiAs(key, "/v1/schedules", {
          method: "POST",
          json: { name: `schedule ${n}`, cron: "0 3 * * *", benchmark_id: benchmarkId, config: config(), enabled: false },
        }),
        "schedule_id",
      ),
  },
];

const OWN = 5;
const LIMIT = 2;

async function storeBenchmark(key: string): Promise<string> {
  const res = await apiAs(key, "/v1/benchmarks", {
    method: "POST",
    json: { name: "paging", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { benchmark_id: string }).benchmark_id;
}

/** Newest first, the id breaking ties (both descending), as the server promises. */
const newestFirst = (a: Listed, b: Listed) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;

describe.each(CASES)("GET $path pages", (list) => {
  let own: TestTenant;
  let other: TestTenant;
  let ownRows: Listed[];
  let otherRows: Listed[];

  beforeAll(async () => {
    [own, other] = [await createTenant({ name: `paging ${list.field}` }), await createTenant({ name: `paging other ${list.field}` })];
    const [ownBench, otherBench] = [await storeBenchmark(own.key), await storeBenchmark(other.key)];
    ownRows = [];
    otherRows = [];
    // Interleaved, so the other tenant's rows sit between this tenant's in the table's order.
    for (let n = 0; n < OWN; n++) {
      ownRows.push(await list.create(own.key, ownBench, n));
      if (n < 2) otherRows.push(await list.create(other.key, otherBench, n));
    }
  });

  it(`answers pages of ?limit= items, newest first, every item once, next_cursor null on the last`, async () => {
    const pages: { ids: string[]; next_cursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const res = await apiAs(own.key, `${list.path}?limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown> & { next_cursor: string | null };
      const ids = (body[list.field] as Record<string, string>[]).map((r) => r[list.idField]!);
      pages.push({ ids, next_cursor: body.next_cursor });
      cursor = body.next_cursor;
    } while (cursor && pages.length <= OWN);
    expect(pages.map((p) => p.ids.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.ids)).toEqual([...ownRows].sort(newestFirst).map((r) => r.id));
    expect(pages.at(-1)!.next_cursor).toBeNull();
  });

  it("answers up to 100 items and next_cursor null without ?limit= (an existing client sees every item)", async () => {
    const body = (await (await apiAs(own.key, list.path)).json()) as Record<string, unknown>;
    expect((body[list.field] as Record<string, string>[]).map((r) => r[list.idField])).toEqual(
      [...ownRows].sort(newestFirst).map((r) => r.id),
    );
    expect(body.next_cursor).toBeNull();
  });

  it("never shows another tenant's items, and another tenant's cursor only pages its own", async () => {
    const first = (await (await apiAs(other.key, `${list.path}?limit=1`)).json()) as Record<string, unknown> & { next_cursor: string };
    const ids = (body: Record<string, unknown>) => (body[list.field] as Record<string, string>[]).map((r) => r[list.idField]);
    expect(ids(first)).toEqual([[...otherRows].sort(newestFirst)[0]!.id]);
    const ownPage = (await (await apiAs(own.key, `${list.path}?cursor=${encodeURIComponent(first.next_cursor)}`)).json()) as Record<
      string,
      unknown
    >;
    const otherIds = new Set(otherRows.map((r) => r.id));
    expect(ids(ownPage).filter((id) => otherIds.has(id!))).toEqual([]);
  });

  it.each([
    ["limit=0", "query limit"],
    ["limit=501", "query limit"],
    ["limit=ten", "query limit"],
    ["cursor=not-a-cursor", "query cursor"],
    ["cursor=", "query cursor"],
    ["page=2", "query page"],
  ])("refuses ?%s with 400 invalid_query at %s", async (query, path) => {
    const res = await apiAs(own.key, `${list.path}?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("invalid_query");
    expect(body.error.issues.map((i) => i.path)).toContain(path);
  });
});
