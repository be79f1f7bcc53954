import type { Command } from "commander";
import type { queueCollect, queueStatus, queueSubmit, queueWork } from "../commands/queue.js";
import { parseInteger } from "../options.js";

const REDIS_HELP =
  "the Redis server that holds the queue (default $LAGRANGE_REDIS_URL, else redis://127.0.0.1:6379)";

export function defineQueue(program: Command): void {
  const queue = program
    .command("queue")
    .description(
      "Tag a corpus on many machines: submit it as shards to a BullMQ queue on Redis, run workers anywhere, collect the ordered output",
    );
  queue
    .command("submit")
    .description(
      "Cut the data into shards of whole sentences (their text is stored in Redis) and queue one job per shard; the model must be readable by every worker (a shared path or an http(s) URL)",
    )
    .requiredOption("--data <file>", "data to tag: a CoNLL, CoNLL-U or inline file")
    .requiredOption("--model <path|url>", "model file, at a path or URL every worker can read")
    .requiredOption("--job <name>", "the job's name (letters, digits, . _ -)")
    .option("--format <format>", "conll, conllu or inline (default from the extension)")
    .option("--decoder <name>", "any decoder of `lagrange tag` (default viterbi)")
    .option("--constraints <file>", "constraints file (stored with the job)")
    .option("--unlabeled", "the data has no gold label column")
    .option("--shard-size <n>", "sentences per shard", parseInteger, 1000)
    .option("--attempts <n>", "tries per shard before it is dead-lettered", parseInteger, 3)
    .option("--backoff <ms>", "first retry delay, doubled at each retry", parseInteger, 1000)
    .option("--redis <url>", REDIS_HELP)
    .action(async (...args: Parameters<typeof queueSubmit>) => {
      const { queueSubmit } = await import("../commands/queue.js");
      await queueSubmit(...args);
    });
  queue
    .command("work")
    .description(
      "Tag shards until stopped (run one per core, on any number of machines); SIGTERM or Ctrl-C finishes the shard in hand and exits 0, a second signal exits at once (the shard is retried elsewhere); survives Redis restarts",
    )
    .option("--concurrency <k>", "shards in flight in this process", parseInteger, 1)
    .option(
      "--lock <ms>",
      "a shard whose worker is silent this long is taken by another (default 30000)",
      parseInteger,
    )
    .option(
      "--stalled-interval <ms>",
      "how often to look for shards of dead workers (default 30000)",
      parseInteger,
    )
    .option("--redis <url>", REDIS_HELP)
    .action(async (...args: Parameters<typeof queueWork>) => {
      const { queueWork } = await import("../commands/queue.js");
      await queueWork(...args);
    });
  queue
    .command("collect")
    .description(
      "Wait until every shard is done, then write the output in corpus order, atomically; shards that failed every try are listed with their errors and the command fails (with --partial, after writing the rest)",
    )
    .requiredOption("--job <name>", "the job's name")
    .requiredOption("--out <file>", "output file, written atomically")
    .option("--no-wait", "fail at once if some shards are not done")
    .option("--partial", "write the shards that are done even when some are dead")
    .option("--redis <url>", REDIS_HELP)
    .action(async (...args: Parameters<typeof queueCollect>) => {
      const { queueCollect } = await import("../commands/queue.js");
      await queueCollect(...args);
    });
  queue
    .command("status")
    .description(
      "A job's progress (done, active, waiting, failed and to be retried, dead) and throughput",
    )
    .requiredOption("--job <name>", "the job's name")
    .option("--json", "as JSON")
    .option("--redis <url>", REDIS_HELP)
    .action(async (...args: Parameters<typeof queueStatus>) => {
      const { queueStatus } = await import("../commands/queue.js");
      await queueStatus(...args);
    });
}
