import { describe, expect, it } from "vitest";
import { PartBuffer } from "../../../src/exports/part-buffer";

const bytes = (...xs: number[]) => new Uint8Array(xs);

describe("PartBuffer", () => {
  it("cuts parts of exactly partSize across chunk boundaries and keeps the rest in order", () => {
    const b = new PartBuffer(4);
    b.push(bytes(1, 2, 3));
    expect(b.takePart()).toBeNull();
    b.push(bytes(4, 5));
    b.push(bytes(6, 7, 8, 9, 10));
    expect([...b.takePart()!]).toEqual([1, 2, 3, 4]);
    expect([...b.takePart()!]).toEqual([5, 6, 7, 8]);
    expect(b.takePart()).toBeNull();
    expect(b.size).toBe(2);
    expect([...b.takeRest()]).toEqual([9, 10]);
    expect(b.size).toBe(0);
    expect(b.takeRest().byteLength).toBe(0);
  });

  it("prepends earlier bytes before what was pushed", () => {
    const b = new PartBuffer(3);
    b.push(bytes(4, 5));
    b.prepend([bytes(1), new Uint8Array(0), bytes(2, 3)]);
    expect(b.size).toBe(5);
    expect([...b.takePart()!]).toEqual([1, 2, 3]);
    expect([...b.takeRest()]).toEqual([4, 5]);
  });
});
