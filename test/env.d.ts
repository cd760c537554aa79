// Types for tests that run inside workerd: the worker's bindings plus what the test config adds.
import type { D1Migration } from "cloudflare:test";
import type { Env as EdgevalEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends EdgevalEnv {
      TEST_MIGRATIONS: D1Migration[];
      FAKE_LLM_URL: string;
      WEBHOOK_RECEIVER_URL: string;
      CANARY_PORT: string;
      CANARY_IPV6: string;
      RELIABILITY_REPORT_URL: string;
      RELIABILITY_SIZE: "fast" | "full";
      MCP_SERVER_URL: string;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
export {};
