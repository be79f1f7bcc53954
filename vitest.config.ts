import { configDefaults, defineConfig } from "vitest/config";

// The workspace packages export their TypeScript sources under the "lagrange-source" condition
// (built packages resolve to dist/); tests run the sources, so every resolver gets the condition:
// Vite's (transformed modules) and Node's own in the forks (externalised modules, worker threads).
const SOURCE_CONDITION = "lagrange-source";

const ALL_TESTS = [
  "packages/*/src/**/*.test.ts",
  "apps/*/src/**/*.test.ts",
  "tools/*/**/*.test.ts",
];

// The integration tier (`pnpm test:integration`): tests that run the real binary, Redis, signals,
// whole experiments or real corpora, minutes in all. Every other test is the unit tier
// (`pnpm test:unit`, the inner loop: in-process, seconds each). A new slow test joins this tier by
// its name (`*.integration.test.ts`, `*.slow.test.ts`) or by an entry here; `pnpm test` runs both,
// and tools/test-tiers/run.mjs records each tier's wall time.
const INTEGRATION_TESTS = [
  "**/*.integration.test.ts",
  "**/*.slow.test.ts",
  // The binary as a user runs it: hostile inputs under memory and time caps, signals, fuzzed
  // command lines, failing outputs, the queue against redis-server.
  "apps/cli/src/hostile/**/*.test.ts",
  "apps/cli/src/probe/**/*.test.ts",
  // Whole commands, each training its models: in-process or through the spawned binary.
  ...[
    "bcrf",
    "binary",
    "cli",
    "constraints",
    "crfsuite-interop",
    "eval-roundtrip",
    "general-crf",
    "l2s",
    "rules",
    "tag-entry",
    "tag-stream",
  ].map((name) => `apps/cli/src/${name}.test.ts`),
  // The benchmark suites and anzaroot2014's citation experiment, each run end to end.
  "apps/bench/src/**/*.test.ts",
  "packages/experiments/src/citations/benchmark.test.ts",
  "packages/recipes/src/citations/citations.test.ts",
  // Every README code block, each in a fresh tsx process.
  "tools/readme-examples/**/*.test.ts",
  // Real corpora from the dataset mirror (skipped, saying so, without one).
  "**/real-data.test.ts",
  "packages/recipes/src/ilp-agreement.test.ts",
  // A real redis-server (skipped, saying so, without one).
  "packages/scale/src/queue/submit.test.ts",
  "packages/scale/src/queue/target.test.ts",
];

export default defineConfig({
  resolve: { conditions: [SOURCE_CONDITION, "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, "node", "import", "default"] } },
  test: {
    testTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { execArgv: [`--conditions=${SOURCE_CONDITION}`] } },
    // `vitest run` runs both tiers; `--project unit` or `--project integration` one of them.
    // `pnpm test:unit` adds `--maxWorkers=100%` (vitest's default leaves a core free: one fork on 2
    // cores); the integration tier keeps the default, its tests spawn processes and threads.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ALL_TESTS,
          exclude: [...configDefaults.exclude, ...INTEGRATION_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: INTEGRATION_TESTS,
          // The binary these tests spawn runs the CLI's bundle, built once here (about 0.5 s less
          // per start than compiling the sources with tsx): see tools/test-tiers/cli-bundle.mjs.
          globalSetup: ["tools/test-tiers/cli-bundle.mjs"],
          env: { LAGRANGE_CLI_BUNDLE: "1" },
        },
      },
    ],
  },
});
