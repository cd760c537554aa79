// Vite's `?raw` imports (the Karenina fixtures are .jsonld text files), for the benchmarks tests.
declare module "*.jsonld?raw" {
  const text: string;
  export default text;
}
