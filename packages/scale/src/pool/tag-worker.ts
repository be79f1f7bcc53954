// A tag-pool worker: builds its tagger once from workerData, then reads, tags and writes the
// batches of lines it is sent.
import { parentPort, workerData } from "node:worker_threads";
import { parseConstraintsFile } from "@lagrange/constraint-templates";
import { lagrangeErrorCode } from "@lagrange/core";
import { tagLineBatch } from "../stream/line-batch.js";
import { modelOf, registryOf, ThreadTagger } from "../stream/setup.js";
import type { TagWorkerData, TagWorkerReply, TagWorkerRequest } from "./messages.js";

const data = workerData as TagWorkerData;
const port = parentPort!;

function failure(id: number, error: unknown): TagWorkerReply {
  const message = error instanceof Error ? error.message : String(error);
  return { type: "error", id, message, code: lagrangeErrorCode(error) };
}

try {
  const model = await modelOf(data.setup.model);
  const registry = await registryOf(data.setup);
  const text = data.setup.constraintsText;
  const setup =
    text === undefined
      ? data.setup
      : {
          ...data.setup,
          constraints: parseConstraintsFile(text.text, {
            source: text.source,
            expectedLabels: model.labels.names(),
          }).entries,
        };
  const tagger = new ThreadTagger(model, registry, setup, data.explain);
  port.on("message", (request: TagWorkerRequest) => {
    let reply: TagWorkerReply;
    try {
      reply = {
        type: "result",
        id: request.id,
        result:
          "sentences" in request
            ? tagger.tagBatch(request.sentences)
            : tagLineBatch(tagger, request.batch, request.stripGold, data.spec),
      };
    } catch (error) {
      reply = failure(request.id, error);
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: "ready" } satisfies TagWorkerReply);
} catch (error) {
  port.postMessage(failure(-1, error));
}
