// Entry of tag-pool workers when TypeScript sources run (tests, `node --import tsx`): a worker
// thread does not inherit the main thread's loader, so register tsx before importing the
// TypeScript worker. Built code starts tag-worker.js directly and skips this file.
import { workerData } from "node:worker_threads";

if (workerData.registerTsx) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.entry);
