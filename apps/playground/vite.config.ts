import { defaultClientConditions, defineConfig } from "vite";

// The workspace packages export their TypeScript sources under "lagrange-source": the page builds
// from them, so it needs no prior `pnpm build`; each package's "#platform" import then resolves to
// its browser twin through the default (non-node) condition.
export default defineConfig({
  base: "./",
  resolve: { conditions: ["lagrange-source", ...defaultClientConditions] },
  build: { target: "es2022", chunkSizeWarningLimit: 1500 },
  server: { port: 4173, strictPort: true },
  preview: { port: 4173, strictPort: true, host: "127.0.0.1" },
});
