/** The QuickJS wasm binary, loaded by wrangler/workerd as a compiled module (see the rule in wrangler.toml). */
declare module "@jitl/quickjs-wasmfile-release-sync/wasm" {
  const wasmModule: WebAssembly.Module;
  export default wasmModule;
}
