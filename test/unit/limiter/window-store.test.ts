import { describe, expect, it } from "vitest";
import { coalescedWindowStore } from "../../../src/limiter/window-store";

/** A KV that logs every write it gets. */
function loggingKv() {
  const data = new Map<string, [number, number]>();
  const writes: string[] = [];
  return {
    data,
    writes,
    kv: {
      put: (k: string, v: [number, number]) => void (writes.push(`put ${k}`), data.set(k, v)),
      delete: (k: string) => void (writes.push(`delete ${k}`), data.delete(k)),
    },
  };
}

describe("coalescedWindowStore", () => {
  it("writes nothing before flush, then each key once with its last value", () => {
    const { kv, data, writes } = loggingKv();
    const { store, flush } = coalescedWindowStore(kv);
    store.put("h:a", [100, 1]);
    store.put("h:a", [100, 2]);
    store.put("h:b", [100, 1]);
    store.put("h:a", [100, 5]);
    expect(writes).toEqual([]);
    flush();
    expect(writes).toEqual(["put h:a", "put h:b"]);
    expect(Object.fromEntries(data)).toEqual({ "h:a": [100, 5], "h:b": [100, 1] });
  });

  it("a key deleted after its put is deleted, one put after a delete is kept, and a flush forgets what it wrote", () => {
    const { kv, data, writes } = loggingKv();
    data.set("e:1", [0, 1]);
    const { store, flush } = coalescedWindowStore(kv);
    store.put("h:a", [100, 1]);
    store.delete("h:a");
    store.delete("e:1");
    store.put("e:1", [5, 2]);
    flush();
    expect(writes).toEqual(["delete h:a", "put e:1"]);
    expect(Object.fromEntries(data)).toEqual({ "e:1": [5, 2] });
    flush();
    expect(writes).toHaveLength(2);
  });
});
