// Every folder under src/ with 4 or more files has a README.md whose file table names each of
// them (issue 13): a new file without a row, or a new folder without a README, fails here.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../../src");

function folders(dir: string): string[] {
  return [
    dir,
    ...fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => folders(path.join(dir, e.name))),
  ];
}

const filesOf = (dir: string) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith(".md"))
    .map((e) => e.name);

/** Files named in a table row (`| \`name\` | …`) of the README text. */
function tabled(readme: string): Set<string> {
  const names = new Set<string>();
  for (const line of readme.split("\n")) {
    if (!line.trimStart().startsWith("|")) continue;
    for (const m of line.matchAll(/`([^`]+)`/g)) names.add(m[1]!);
  }
  return names;
}

describe("folder READMEs", () => {
  it("every folder with 4+ files has a README whose file table names each file", () => {
    const problems: string[] = [];
    for (const dir of folders(SRC)) {
      const files = filesOf(dir);
      if (files.length < 4) continue;
      const rel = path.relative(path.dirname(SRC), dir).split(path.sep).join("/");
      const readme = path.join(dir, "README.md");
      if (!fs.existsSync(readme)) {
        problems.push(`${rel}: no README.md (${files.length} files)`);
        continue;
      }
      const rows = tabled(fs.readFileSync(readme, "utf8"));
      for (const f of files) if (!rows.has(f)) problems.push(`${rel}/README.md: no table row for ${f}`);
    }
    expect(problems).toEqual([]);
  });

  it("reads file names only from table rows", () => {
    expect([...tabled("see `a.ts` here\n| `b.ts` | what |\n|---|---|\n| `c.ts`, `d.ts` | both |")]).toEqual(["b.ts", "c.ts", "d.ts"]);
  });
});
