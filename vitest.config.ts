import { defineConfig } from "vitest/config";

// The workspace packages export their TypeScript sources under the "lagrange-source" condition
// (built packages resolve to dist/); tests run the sources, so every resolver gets the condition:
// Vite's (transformed modules) and Node's own in the forks (externalised modules, worker threads).
const SOURCE_CONDITION = "lagrange-source";

export default defineConfig({
  resolve: { conditions: [SOURCE_CONDITION, "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, "node", "import", "default"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "tools/*/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { execArgv: [`--conditions=${SOURCE_CONDITION}`] } },
  },
});
