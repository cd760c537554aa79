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
  // A byte order mark (Windows editors, PowerShell's Out-File) is no part of the JSON; JSON.parse refuses it.
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  try {
    return ext === ".yaml" || ext === ".yml" ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid ${ext === ".yaml" || ext === ".yml" ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
}

/** `@file` reads a file's text; anything else is the text itself. `flag` names the option in an error. */
export function textArg(value: string, flag: string): string {
  if (!value.startsWith("@")) return value;
  const file = value.slice(1);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`${flag} ${value}: cannot read ${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
}

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

/** Why FILE could not be written, in words, from a Node fs error. */
function cannotWrite(file: string, err: unknown): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    ENOENT: `there is no directory ${path.dirname(file)}`,
    EISDIR: "it is a directory",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EROFS: "the file system is read-only",
    ENOSPC: "the disk is full",
  };
  return new CliError(`cannot write ${file}: ${(code && why[code]) ?? (err as Error).message}`);
}

/**
 * Refuses an output FILE that cannot be written where it is (no such directory, or FILE is a
 * directory), naming FILE, so that a command checks it before its requests (a whole run, an
 * export built on the server) rather than after them.
 */
export function checkWritable(file: string, flag?: string): void {
  if (file === "-") return;
  const prefix = flag ? `${flag}: ` : "";
  if (!fs.statSync(path.dirname(path.resolve(file)), { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`${prefix}cannot write ${file}: there is no directory ${path.dirname(file)}`);
  }
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`${prefix}cannot write ${file}: it is a directory`);
}

/** Writes to FILE (atomically, through a temp file) or to stdout for "-". */
export async function writeOutput(file: string, body: (emit: (s: string) => void) => Promise<void>): Promise<void> {
  if (file === "-") {
    await body((s) => void process.stdout.write(s));
    return;
  }
  const tmp = `${file}.tmp-${process.pid}`;
  let fd: number | undefined;
  // Ctrl-C (or SIGTERM) mid-download would leave FILE.tmp-PID behind: remove it, then stop as the signal would.
  // Installed before the temp file exists: a signal in between would end the process by Node's default, leaving it.
  const onSignal = (signal: NodeJS.Signals) => {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    process.stderr.write(`\nedgeval: interrupted: nothing written to ${file}\n`);
    process.exit(signal === "SIGTERM" ? 143 : 130);
  };
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    fd = fs.openSync(tmp, "w");
  } catch (err) {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
    // The temp file's name is ours, not the user's: name the file they asked for.
    throw cannotWrite(file, err);
  }
  try {
    await body((s) => void fs.writeSync(fd!, s));
    fs.closeSync(fd);
    fd = undefined;
    try {
      fs.renameSync(tmp, file);
    } catch (err) {
      throw cannotWrite(file, err);
    }
  } catch (err) {
    // Closed once only: closing twice would throw EBADF over the real error and leave the temp file.
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
}
