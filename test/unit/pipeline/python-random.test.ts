import { describe, expect, it } from "vitest";
import { kareninaSeed } from "../../../src/pipeline/few-shot";
import { PythonRandom } from "../../../src/pipeline/python-random";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

// Every expected value below was printed by CPython 3.11.7 (`random.seed(s); random.sample(...)`).
describe("PythonRandom: CPython's Mersenne Twister seeding and random.sample", () => {
  // Karenina's k-shot seed: schemas/config/models.py:472, int(md5(question_id).hexdigest(), 16) & 0x7FFFFFFF (the low 31 bits).
  it("the k-shot seed is the low 31 bits of the question id's MD5 (issue 23: q01-venetoclax-target → 481742513)", () => {
    expect(kareninaSeed("q01-venetoclax-target")).toBe(481742513);
  });

  it("random.seed(481742513) then getrandbits(32) × 3", () => {
    const r = new PythonRandom(481742513);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([1709521459, 519372281, 2135317563]);
  });

  it("sample(range(n), 3) for the pool path (5, 30) and the set path (1000), pinned in issue 23", () => {
    expect(new PythonRandom(481742513).sample(range(5), 3)).toEqual([3, 0, 1]);
    expect(new PythonRandom(481742513).sample(range(30), 3)).toEqual([12, 3, 15]);
    expect(new PythonRandom(481742513).sample(range(1000), 3)).toEqual([407, 123, 509]);
  });

  it("larger k moves the pool/set boundary (setsize 21 + 4^ceil(log4 3k)), and other seeds", () => {
    expect(new PythonRandom(0).sample(range(100), 10)).toEqual([49, 97, 53, 5, 33, 65, 62, 51, 38, 61]);
    expect(new PythonRandom(7).sample([..."abcdefghijklmnopqrstuvwxyz"], 8)).toEqual(["k", "e", "m", "u", "b", "c", "r", "d"]);
    expect(new PythonRandom(2 ** 31 - 1).sample(range(50), 40)).toEqual([
      20, 7, 12, 18, 45, 21, 0, 34, 47, 9, 13, 33, 28, 44, 23, 1, 38, 40, 3, 26, 15, 22, 36, 41, 43, 37, 48, 2, 6, 49, 25, 19, 42, 39, 24,
      29, 31, 27, 11, 30,
    ]);
  });

  it("refuses a sample larger than the population, as CPython does", () => {
    expect(() => new PythonRandom(1).sample([1, 2], 3)).toThrow(RangeError);
  });
});
