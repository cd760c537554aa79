/**
 * The tenant-scoped lists that used to answer every row at once (GET /v1/judges, /v1/presets,
 * /v1/triggers, /v1/schedules, /v1/keys, /v1/secrets, /v1/judges/:id/tokens), and a run's exports
 * (GET /v1/runs/:id/exports, new on 7 Dec: an export whose id was lost is found there), page as GET /v1/runs
 * and /v1/benchmarks do: `?limit=&cursor=`, newest first with the id breaking ties, `next_cursor`
 * null on the last page. One contract, run against each list; each tenant sees only its own rows.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";

interface Listed {
  id: string;
  created_at: string;
}

interface ListCase {
  /** `:id` is the parent `setup` made (a judge, for its tokens). */
  path: string;
  /** The array's name in the answer. */
  field: string;
  idField: string;
  /** What each tenant's rows need (by default a stored benchmark); its id goes to `create` and the path. */
  setup?: (key: string) => Promise<string>;
  create: (key: string, parentId: string, n: number) => Promise<Listed>;
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

async function storeJudge(key: string, n = 0): Promise<Listed> {
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
}

let secretSeq = 0;

const CASES: ListCase[] = [
  {
    path: "/v1/judges",
    field: "judges",
    idField: "judge_id",
    create: (key, _b, n) => storeJudge(key, n),
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
  {
    path: "/v1/keys",
    field: "keys",
    idField: "key_id",
    create: async (key, _b, n) =>
      created(await apiAs(key, "/v1/keys", { method: "POST", json: { name: `key ${n}`, scopes: ["runs:read"] } }), "key_id"),
  },
  {
    path: "/v1/secrets",
    field: "secrets",
    idField: "name",
    // Names unique across tenants, so one tenant's rows cannot pass for the other's.
    create: async (key, _b, n) =>
      created(
        await apiAs(key, `/v1/secrets/PAGED_KEY_${secretSeq++}`, { method: "PUT", json: { value: `sk-${n}`, interface: "openai" } }),
        "name",
      ),
  },
  {
    path: "/v1/judges/:id/tokens",
    field: "tokens",
    idField: "token_id",
    setup: async (key) => (await storeJudge(key)).id,
    create: async (key, judgeId, n) =>
      created(await apiAs(key, `/v1/judges/${judgeId}/tokens`, { method: "POST", json: { name: `token ${n}` } }), "token_id"),
  },
  {
    path: "/v1/runs/:id/exports",
    field: "exports",
    idField: "export_id",
    // A finished run of the tenant (exports wait for a run's end).
    setup: async (key) => {
      const runId = await submitAs(key, {
        benchmark: { name: "paging", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
        config: config(),
      });
      await waitAs(key, runId);
      return runId;
    },
    create: async (key, runId, n) => {
      const res = await apiAs(key, `/v1/runs/${runId}/exports`, { method: "POST", json: { format: n % 2 ? "csv" : "ndjson" } });
      expect(res.status, await res.clone().text()).toBe(202);
      const body = (await res.json()) as { export_id: string; created_at: string };
      return { id: body.export_id, created_at: body.created_at };
    },
  },
];

const OWN = 5;
const LIMIT = 2;

/** The page sizes listing `total` rows by `limit` gives: a full last page is followed by an empty one. */
const pageSizes = (total: number, limit: number) => [
  ...Array.from({ length: Math.ceil(total / limit) }, (_, i) => Math.min(limit, total - i * limit)),
  ...(total % limit === 0 ? [0] : []),
];

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
  let ownPath: string;
  let otherPath: string;

  /** The rows the list holds already (a tenant's first API key). */
  async function existing(key: string, path: string): Promise<Listed[]> {
    const res = await apiAs(key, `${path}?limit=500`);
    expect(res.status, await res.clone().text()).toBe(200);
    const rows = (await res.json()) as Record<string, Record<string, string>[]>;
    return rows[list.field]!.map((r) => ({ id: r[list.idField]!, created_at: r.created_at! }));
  }

  beforeAll(async () => {
    [own, other] = [await createTenant({ name: `paging ${list.field}` }), await createTenant({ name: `paging other ${list.field}` })];
    const setup = list.setup ?? storeBenchmark;
    const [ownParent, otherParent] = [await setup(own.key), await setup(other.key)];
    [ownPath, otherPath] = [list.path.replace(":id", ownParent), list.path.replace(":id", otherParent)];
    ownRows = await existing(own.key, ownPath);
    otherRows = await existing(other.key, otherPath);
    // Interleaved, so the other tenant's rows sit between this tenant's in the table's order.
    for (let n = 0; n < OWN; n++) {
      ownRows.push(await list.create(own.key, ownParent, n));
      if (n < 2) otherRows.push(await list.create(other.key, otherParent, n));
    }
  });

  it(`answers pages of ?limit= items, newest first, every item once, next_cursor null on the last`, async () => {
    const pages: { ids: string[]; next_cursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const res = await apiAs(own.key, `${ownPath}?limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown> & { next_cursor: string | null };
      const ids = (body[list.field] as Record<string, string>[]).map((r) => r[list.idField]!);
      pages.push({ ids, next_cursor: body.next_cursor });
      cursor = body.next_cursor;
    } while (cursor && pages.length <= ownRows.length);
    expect(pages.map((p) => p.ids.length)).toEqual(pageSizes(ownRows.length, LIMIT));
    expect(pages.flatMap((p) => p.ids)).toEqual([...ownRows].sort(newestFirst).map((r) => r.id));
    expect(pages.at(-1)!.next_cursor).toBeNull();
  });

  it("answers up to 100 items and next_cursor null without ?limit= (an existing client sees every item)", async () => {
    const body = (await (await apiAs(own.key, ownPath)).json()) as Record<string, unknown>;
    expect((body[list.field] as Record<string, string>[]).map((r) => r[list.idField])).toEqual(
      [...ownRows].sort(newestFirst).map((r) => r.id),
    );
    expect(body.next_cursor).toBeNull();
  });

  it("never shows another tenant's items, and another tenant's cursor only pages its own", async () => {
    const first = (await (await apiAs(other.key, `${otherPath}?limit=1`)).json()) as Record<string, unknown> & { next_cursor: string };
    const ids = (body: Record<string, unknown>) => (body[list.field] as Record<string, string>[]).map((r) => r[list.idField]);
    expect(ids(first)).toEqual([[...otherRows].sort(newestFirst)[0]!.id]);
    const ownPage = (await (await apiAs(own.key, `${ownPath}?cursor=${encodeURIComponent(first.next_cursor)}`)).json()) as Record<
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
    const res = await apiAs(own.key, `${ownPath}?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("invalid_query");
    expect(body.error.issues.map((i) => i.path)).toContain(path);
  });
});

describe("lists within a tenant", () => {
  it("GET /v1/judges/:id/tokens lists that judge's tokens only, not the tenant's other judges'", async () => {
    const t = await createTenant({ name: "tokens of one judge" });
    const [a, b] = [await storeJudge(t.key), await storeJudge(t.key)];
    const mint = async (judgeId: string) =>
      created(await apiAs(t.key, `/v1/judges/${judgeId}/tokens`, { method: "POST", json: {} }), "token_id");
    const aTokens = [await mint(a.id), await mint(a.id)];
    await mint(b.id);
    const body = (await (await apiAs(t.key, `/v1/judges/${a.id}/tokens`)).json()) as { tokens: { token_id: string }[] };
    expect(body.tokens.map((k) => k.token_id)).toEqual(aTokens.sort(newestFirst).map((k) => k.id));
  });

  it("GET /v1/secrets keeps a replaced secret where it was: the order is when its name was first set", async () => {
    const t = await createTenant({ name: "secret order" });
    const put = (name: string, value: string) =>
      apiAs(t.key, `/v1/secrets/${name}`, { method: "PUT", json: { value, interface: "openai" } });
    for (const name of ["FIRST_KEY", "SECOND_KEY", "THIRD_KEY"]) expect((await put(name, "sk-1")).status).toBe(201);
    const names = async () =>
      ((await (await apiAs(t.key, "/v1/secrets")).json()) as { secrets: { name: string }[] }).secrets.map((s) => s.name);
    const before = await names();
    expect((await put("FIRST_KEY", "sk-2")).status).toBe(200);
    expect(await names()).toEqual(before);
    expect(new Set(before)).toEqual(new Set(["FIRST_KEY", "SECOND_KEY", "THIRD_KEY"]));
  });
});
