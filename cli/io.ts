/** Files and output for the CLI: JSON/YAML/JSON-LD in, and lines out that suit a terminal or a CI log. */
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

/** A usage problem: printed as is, exit code 2. */
export class CliError extends Error {
  // Declared fields, not parameter properties: Node's type stripping runs only erasable syntax.
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Reads JSON, JSON-LD or YAML (by extension), with errors that name the file. */
export function readData(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  const ext = path.extname(file).toLowerCase();
  try {
    return ext === ".yaml" || ext === ".yml" ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid ${ext === ".yaml" || ext === ".yml" ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
}

/** `@file` reads a file's text; anything else is the text itself. */
export const textArg = (value: string): string => (value.startsWith("@") ? fs.readFileSync(value.slice(1), "utf8") : value);

export interface Out {
  line(s: string): void;
  err(s: string): void;
  /** Rewrites the current terminal line (TTY only). */
  status(s: string): void;
  isTTY: boolean;
}

export function stdio(): Out {
  const isTTY = process.stderr.isTTY === true;
  let open = false;
  const close = () => {
    if (open) process.stderr.write("\n");
    open = false;
  };
  return {
    isTTY,
    line: (s) => (close(), process.stdout.write(`${s}\n`)),
    err: (s) => (close(), process.stderr.write(`${s}\n`)),
    status: (s) => {
      if (!isTTY) return;
      process.stderr.write(`\r\x1b[2K${s}`);
      open = true;
    },
  };
}

/** Writes to FILE (atomically, through a temp file) or to stdout for "-". */
export async function writeOutput(file: string, body: (emit: (s: string) => void) => Promise<void>): Promise<void> {
  if (file === "-") {
    await body((s) => void process.stdout.write(s));
    return;
  }
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, "w");
  try {
    await body((s) => void fs.writeSync(fd, s));
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
