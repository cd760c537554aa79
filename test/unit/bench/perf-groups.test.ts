// bench/lib/perf-groups.mjs: what a perf sample of workerd was doing, and perf report's lines read.
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { groupReport, PERF_GROUPS, perfGroup } from "../../../bench/lib/perf-groups.mjs";

describe("perfGroup", () => {
  it.each([
    ["[JIT] tid 22599", "JS:+inst._zod.parse index.js:8500:21", "optimised JavaScript"],
    ["[kernel.kallsyms]", "finish_task_switch.isra.0", "kernel"],
    ["libc.so.6", "__memmove_avx512_unaligned_erms", "libc"],
    ["workerd", "Builtins_CallFunction_ReceiverIsNotNullOrUndefined", "V8 builtins and interpreter"],
    ["workerd", "Builtins_GetNamedPropertyHandler", "V8 builtins and interpreter"],
    ["workerd", "sqlite3VdbeExec", "SQLite"],
    ["workerd", "v8::internal::Scavenger::ScavengeObject<v8::internal::CompressedHeapObjectSlot>", "GC"],
    ["workerd", "v8::internal::Parser::ParseFunctionLiteral", "parsing and compiling"],
    ["workerd", "v8::internal::maglev::MaglevGraphBuilder::VisitBytecodes", "parsing and compiling"],
    ["workerd", "v8::internal::JsonStringifier::SerializeString<false>", "V8 runtime and workerd's bindings"],
    [
      "workerd",
      "workerd::jsg::ResourceWrapper<workerd::server::JsgWorkerdIsolate_TypeWrapper>::getTemplate",
      "V8 runtime and workerd's bindings",
    ],
    ["workerd", "capnp::_::PointerBuilder::initStruct", "Cap'n Proto"],
    ["workerd", "kj::_::Event::armDepthFirst", "KJ event loop"],
    ["workerd", "workerd::IoContext::clearTimeoutImpl", "workerd I/O"],
    ["workerd", "tcmalloc::tcmalloc_internal::FreeWithHooksOrPerThread", "allocator and other native code"],
  ])("%s %s → %s", (dso, sym, group) => {
    expect(perfGroup(dso, sym)).toBe(group);
    expect(PERF_GROUPS).toContain(group);
  });
});

describe("groupReport", () => {
  it("sums perf report's lines by group and by symbol, the JIT's thread ids aside", () => {
    const text = [
      "# comment",
      "    39  workerd            [.] tcmalloc::tcmalloc_internal::alloc_small",
      "     5  [JIT] tid 22599    [.] JS:+f index.js:1:1",
      "     2  [JIT] tid 22600    [.] JS:+f index.js:1:1",
      "    19  [kernel.kallsyms]  [k] finish_task_switch.isra.0",
      "",
    ].join("\n");
    const r = groupReport(text);
    expect(r.total).toBe(65);
    expect(r.groups.get("allocator and other native code")).toBe(39);
    expect(r.groups.get("optimised JavaScript")).toBe(7);
    expect(r.groups.get("kernel")).toBe(19);
    expect(r.groups.get("GC")).toBe(0);
    expect(r.symbols.get("optimised JavaScript\tJS:+f index.js:1:1")).toBe(7);
  });
});
