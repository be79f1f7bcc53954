#!/usr/bin/env node
// Runs the CLI from its TypeScript sources (the workspace needs no build step).
import { register } from "tsx/esm/api";

register();
const { runAsProcess } = await import("../src/main.ts");
await runAsProcess(process.argv.slice(2));
