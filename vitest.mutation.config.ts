import { defineConfig } from "vitest/config";

// The vitest config Stryker runs (npm run test:mutation): the platform-free unit tests only, as
// the `core` project of vitest.config.ts runs them. No workerd project and no fake LLM server —
// every module mutated here is pure, and its tests are unit tests.
export default defineConfig({
  test: {
    environment: "node",
    include: ["test/unit/**/*.test.ts"],
  },
});
