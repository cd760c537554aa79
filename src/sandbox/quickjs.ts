/**
 * A QuickJS sandbox for untrusted JavaScript (custom verify code). Edge code: QuickJS is a wasm
 * interpreter, the only way to run user code in workerd (no eval / new Function there).
 *
 * Every call gets a fresh runtime and context, disposed in `finally`, so nothing survives between
 * calls. The guest sees no host function at all: inputs go in as one JSON string, the result
 * comes out as one JSON string. Limits per call:
 * - memory (QuickJS heap) and stack size;
 * - an interrupt cap that counts interrupt-handler calls, because on the edge `Date.now()` does
 *   not advance during synchronous CPU work, so a clock deadline alone may never fire there;
 * - a deadline from an injected clock as well (it does fire locally and whenever time moves);
 * - a budget of builtin work (work-budget.ts): native builtins do unbounded work between two
 *   interrupt polls, so every builtin call is charged by the size of what it touches, and an
 *   interrupt poll taken inside the regex engine counts `regexInterruptWeight` times.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { HOST_REGEX, HOST_STOP, workBudgetPrelude } from "./work-budget";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";

export interface SandboxLimits {
  /** QuickJS heap cap; it also bounds how much data one native builtin call can work through. */
  memoryBytes: number;
  stackBytes: number;
  /** Interrupt-handler calls allowed (QuickJS calls it every few thousand bytecode steps). */
  maxInterrupts: number;
  /** Deadline on the injected clock. */
  timeoutMs: number;
  /** Elements builtin calls may touch in one call of the guest (strings, arrays in and out). */
  builtinWork: number;
  /** How many interrupt checks one poll from inside the regex engine counts for. */
  regexInterruptWeight: number;
}

/**
 * bench/sandbox.mjs prints how each runaway program ends: a bytecode loop makes ~45k interrupt
 * calls a second, so 2,000 (each after ~10,000 back-edges or calls, 2·10^7 in all, far more than a
 * verify needs) is ~50 ms of CPU; a throw-and-catch loop, the slowest per poll, ~0.3 s;
 * 20M builtin elements are 50–400 ms; an allocating loop hits the 16 MB heap cap sooner.
 */
export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 16 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxInterrupts: 2_000,
  timeoutMs: 1_000,
  builtinWork: 20_000_000,
  regexInterruptWeight: 25,
};

export interface SandboxOptions {
  limits?: Partial<SandboxLimits>;
  clock?: { now(): number };
}

export type SandboxFailure = "threw" | "interrupted" | "out_of_memory" | "bad_return" | "engine";

export type SandboxOutcome = { ok: true; value: unknown } | { ok: false; kind: SandboxFailure; error: string };

let modulePromise: Promise<QuickJSWASMModule> | undefined;
const quickjs = () => (modulePromise ??= newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule })));

/** Global name the inputs travel under; removed before the guest's function runs. */
const INPUT_GLOBAL = "__edgeval_input__";

/**
 * Evaluates `source` as a script, then calls the global function `entry` with `args` (plain JSON
 * data) and returns what it returned, as JSON data. `undefined`, functions, symbols, promises and
 * values JSON cannot carry come back as a `bad_return` naming what was returned.
 */
export async function callInSandbox(source: string, entry: string, args: unknown[], options: SandboxOptions = {}): Promise<SandboxOutcome> {
  return runInSandbox(source, entry, args, options, true);
}

/**
 * Evaluates `source` and checks that it defines the function `entry`, without calling it (the
 * submit-time check): `{ok: true}` or why not, naming the line of a syntax error or a throw.
 */
export async function defineInSandbox(source: string, entry: string, options: SandboxOptions = {}): Promise<SandboxOutcome> {
  return runInSandbox(source, entry, [], options, false);
}

async function runInSandbox(
  source: string,
  entry: string,
  args: unknown[],
  options: SandboxOptions,
  call: boolean,
): Promise<SandboxOutcome> {
  if (!/^[A-Za-z_$][\w$]*$/.test(entry)) throw new Error(`entry must be an identifier, got ${JSON.stringify(entry)}`);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const clock = options.clock ?? { now: () => Date.now() };
  let input: string;
  try {
    input = JSON.stringify(args);
  } catch (e) {
    return { ok: false, kind: "engine", error: `inputs are not JSON: ${messageOf(e)}` };
  }
  let runtime: QuickJSRuntime;
  try {
    runtime = (await quickjs()).newRuntime();
  } catch (e) {
    modulePromise = undefined; // a failed start must not stick: the next call tries again
    return { ok: false, kind: "engine", error: `sandbox could not start: ${messageOf(e)}` };
  }
  let stopped: string | null = null;
  try {
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    const deadline = clock.now() + limits.timeoutMs;
    let interrupts = 0;
    let regexDepth = 0;
    runtime.setInterruptHandler(() => {
      if (stopped !== null) return true;
      interrupts += regexDepth > 0 ? limits.regexInterruptWeight : 1;
      if (interrupts > limits.maxInterrupts) {
        stopped =
          regexDepth > 0
            ? `a regular expression ran past ${limits.maxInterrupts} interrupt checks (catastrophic backtracking?)`
            : `it ran past ${limits.maxInterrupts} interrupt checks (runaway loop?)`;
      } else if (clock.now() > deadline) stopped = `it ran longer than ${limits.timeoutMs} ms`;
      return stopped !== null;
    });
    const vm = runtime.newContext();
    try {
      const hooks = {
        stop: () => void (stopped ??= `its builtin calls touched more than ${limits.builtinWork} elements (runaway work inside builtins?)`),
        regex: (entering: boolean) => void (regexDepth = Math.max(0, regexDepth + (entering ? 1 : -1))),
      };
      const prelude = installWorkBudget(vm, limits, hooks);
      if (prelude) return prelude;
      const outcome = runGuest(vm, source, entry, input, limits, call);
      if (stopped !== null) return { ok: false, kind: "interrupted", error: `stopped: ${stopped}` };
      return outcome;
    } finally {
      vm.dispose();
    }
  } catch (e) {
    // The engine itself failed (a wasm trap, a leaked handle): start the next call on a new one.
    modulePromise = undefined;
    if (stopped !== null) return { ok: false, kind: "interrupted", error: `stopped: ${stopped}` };
    return { ok: false, kind: "engine", error: `sandbox failed: ${messageOf(e)}` };
  } finally {
    try {
      runtime.dispose();
    } catch {
      modulePromise = undefined;
    }
  }
}

/** Host hooks + the prelude that wraps the builtins; an outcome only if the prelude itself failed. */
function installWorkBudget(
  vm: QuickJSContext,
  limits: SandboxLimits,
  hooks: { stop(): void; regex(entering: boolean): void },
): SandboxOutcome | null {
  const stop = vm.newFunction(HOST_STOP, () => {
    hooks.stop();
  });
  vm.setProp(vm.global, HOST_STOP, stop);
  stop.dispose();
  const regex = vm.newFunction(HOST_REGEX, (arg) => {
    hooks.regex(vm.getNumber(arg) === 1);
  });
  vm.setProp(vm.global, HOST_REGEX, regex);
  regex.dispose();
  const r = vm.evalCode(workBudgetPrelude(limits.builtinWork), "prelude.js", { type: "global" });
  if (r.error) return guestError(vm, r.error, "the sandbox prelude", limits);
  r.value.dispose();
  return null;
}

/** The guest side: define, check, call, serialise. Every handle is disposed before returning. */
function runGuest(vm: QuickJSContext, source: string, entry: string, input: string, limits: SandboxLimits, call: boolean): SandboxOutcome {
  const defined = vm.evalCode(source, "verify.js", { type: "global" });
  if (defined.error) return guestError(vm, defined.error, "evaluating the source", limits);
  defined.value.dispose();

  const inputHandle = vm.newString(input);
  vm.setProp(vm.global, INPUT_GLOBAL, inputHandle);
  inputHandle.dispose();

  const called = vm.evalCode(callerScript(entry, call), "call.js", { type: "global", strict: true });
  if (called.error) return guestError(vm, called.error, entry, limits);
  const text = vm.typeof(called.value) === "string" ? vm.getString(called.value) : null;
  called.value.dispose();
  if (text === null) return { ok: false, kind: "engine", error: "the sandbox returned no result" };
  return decodeReply(text, entry);
}

/**
 * Runs inside the guest. Reports how the call went as one JSON string:
 * {missing} | {value} | {unserialisable: kind}. Errors thrown by the function propagate.
 */
function callerScript(entry: string, call: boolean): string {
  const name = JSON.stringify(entry);
  const g = JSON.stringify(INPUT_GLOBAL);
  return `(() => {
  const args = JSON.parse(globalThis[${g}]);
  delete globalThis[${g}];
  const fn = globalThis[${name}] ?? (typeof ${entry} === "function" ? ${entry} : undefined);
  if (typeof fn !== "function") return JSON.stringify({ missing: typeof fn });
  ${call ? "" : "return JSON.stringify({ value: true });"}
  const r = fn(...args);
  if (r === undefined) return JSON.stringify({ unserialisable: "undefined (nothing)" });
  if (typeof r === "function" || typeof r === "symbol" || typeof r === "bigint") return JSON.stringify({ unserialisable: "a " + typeof r });
  if (r instanceof Promise) return JSON.stringify({ unserialisable: "a Promise (${entry} must return synchronously)" });
  let text;
  try { text = JSON.stringify({ value: r }); } catch (e) { return JSON.stringify({ unserialisable: "a value JSON cannot hold (" + e + ")" }); }
  return text;
})()`;
}

function decodeReply(text: string, entry: string): SandboxOutcome {
  // The guest can redefine JSON and friends; a reply it garbled is its own bad return, nothing more.
  let reply: { missing?: string; unserialisable?: string; value?: unknown };
  try {
    reply = JSON.parse(text);
  } catch {
    reply = {};
  }
  if (typeof reply !== "object" || reply === null) reply = {};
  if (reply.missing !== undefined) {
    return { ok: false, kind: "bad_return", error: `the source must define function ${entry}(...); ${entry} is ${reply.missing}` };
  }
  if (reply.unserialisable !== undefined) {
    return { ok: false, kind: "bad_return", error: `${entry} returned ${reply.unserialisable}` };
  }
  return { ok: true, value: reply.value };
}

function guestError(vm: QuickJSContext, handle: QuickJSHandle, what: string, limits: SandboxLimits): SandboxOutcome {
  let text: string;
  try {
    text = describeGuestError(vm.dump(handle));
  } catch {
    text = "an error that could not be read (out of memory?)";
  } finally {
    handle.dispose();
  }
  if (/out of memory/i.test(text)) {
    return { ok: false, kind: "out_of_memory", error: `${what} ran out of memory (cap ${formatBytes(limits.memoryBytes)})` };
  }
  return { ok: false, kind: "threw", error: `${what} threw: ${text}` };
}

const formatBytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`);

/** What the guest threw, cut short: the message ends up in every result's field_verification_error. */
function describeGuestError(dumped: unknown): string {
  if (dumped && typeof dumped === "object" && "message" in dumped) {
    const e = dumped as { name?: unknown; message?: unknown; stack?: unknown };
    // QuickJS's stack names the user's script as verify.js: the first such frame is the line to fix.
    const line = typeof e.stack === "string" ? /verify\.js:(\d+)/.exec(e.stack)?.[1] : undefined;
    return clip(`${typeof e.name === "string" ? e.name : "Error"}: ${String(e.message)}${line ? ` (line ${line})` : ""}`);
  }
  // QuickJS throws a bare null when it runs out of memory while building the error object.
  if (dumped === null) return "null (a guest `throw null`, or memory ran out while QuickJS built the error)";
  return clip(JSON.stringify(dumped) ?? String(dumped));
}

const MAX_ERROR_CHARS = 500;
const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text);

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
