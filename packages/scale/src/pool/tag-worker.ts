// A tag-pool worker: opens its tagger once from workerData, then tags the batches it is sent, one
// at a time in the order they come.
import { parentPort, workerData } from "node:worker_threads";
import { lagrangeErrorCode } from "@lagrange/core";
import { openTagger } from "@lagrange/recipes";
import { inTurn, tagLineBatch } from "../stream/line-batch.js";
import type { TagWorkerData, TagWorkerReply, TagWorkerRequest } from "./messages.js";

const data = workerData as TagWorkerData;
const port = parentPort!;

function failure(id: number, error: unknown): TagWorkerReply {
  const message = error instanceof Error ? error.message : String(error);
  return { type: "error", id, message, code: lagrangeErrorCode(error) };
}

try {
  const tagger = await openTagger(data.tagging);
  const turn = inTurn();
  const tag = (request: TagWorkerRequest) => {
    if ("sentences" in request) return tagger.tag(request.sentences, request.request);
    if (data.lines === undefined) throw new Error("tag worker: the pool was given no line format");
    return tagLineBatch(tagger, request.batch, request.stripGold, data.lines);
  };
  port.on("message", (request: TagWorkerRequest) => {
    void turn(async () => {
      let reply: TagWorkerReply;
      try {
        reply = { type: "result", id: request.id, result: await tag(request) };
      } catch (error) {
        reply = failure(request.id, error);
      }
      port.postMessage(reply);
    });
  });
  port.postMessage({ type: "ready" } satisfies TagWorkerReply);
} catch (error) {
  port.postMessage(failure(-1, error));
}
