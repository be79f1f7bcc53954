import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";

/** Debian's Chromium: Playwright's own browser download cannot run here (nor in CI). */
export const CHROMIUM = "/usr/bin/chromium";
export const chromiumMissing = !existsSync(CHROMIUM);
const PORT = 4173;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/artifacts",
  timeout: 60_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  // Without Chromium the tests skip themselves; the server need not start.
  ...(chromiumMissing
    ? {}
    : {
        webServer: {
          command: `npx vite build && npx vite preview --port ${PORT} --strictPort --host 127.0.0.1`,
          url: `http://127.0.0.1:${PORT}/`,
          reuseExistingServer: false,
          timeout: 120_000,
        },
      }),
});
