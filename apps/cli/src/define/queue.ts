import type { Command } from "commander";
import { declareFiles } from "../files-declared.js";
import { parseInteger } from "../options.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS } from "./values.js";

const REDIS_HELP =
  "the Redis server that holds the queue, redis://[user:password@]host:port[/db] or rediss:// for TLS (default $LAGRANGE_REDIS_URL, else redis://127.0.0.1:6379); a password here is visible in the process list: prefer $LAGRANGE_REDIS_URL or --redis-password-file";
const PASSWORD_FILE_HELP =
  "read the Redis password from this file's first line (kept off the command line and out of the environment)";
const MAX_MODEL_HELP = "largest model read, in MiB";

/** `--redis` and `--redis-password-file`, the same on every queue command. */
function withRedis(command: Command): Command {
  return command
    .option("--redis <url>", REDIS_HELP)
    .option("--redis-password-file <file>", PASSWORD_FILE_HELP);
}

const WORKER_TRUST = `
What a worker trusts: a job's spec and shards come from Redis, so anyone who can write to it
can queue work. Workers check every field of a spec; read a model only from Redis (stored by
submit, verified by its SHA-256), from --model-dir (a relative path that must stay inside it,
symlinks resolved; regular files only, at most --max-model-mb), or from an http(s) URL with
--allow-model-urls (off by default: a spec could make every worker fetch any address); never
load plug-ins; never quote a file's content in an error. Protect Redis (requirepass or an ACL
user, rediss:// over networks) and run workers as an unprivileged user, never as root.`;

export function defineQueue(program: Command): void {
  const queue = program
    .command("queue")
    .description(
      "Tag a corpus on many machines: submit it as shards to a BullMQ queue on Redis, run workers anywhere, collect the ordered output",
    );
  const submit = queue
    .command("submit")
    .description(
      "Cut the data into shards of whole sentences (their text is stored in Redis) and queue one job per shard. The model is stored in Redis under its SHA-256 (once, shared by the jobs that use it), so workers need no shared disk; with --model-dir it is named by its path in a directory every worker is given instead. Until the last shard is queued the job shows as being submitted; a submit stopped by a signal or an error removes what it queued, and one that is killed leaves a job `status` shows as incomplete and `remove` clears",
    )
    .requiredOption("--data <file>", "data to tag: a CoNLL, CoNLL-U or inline file")
    .requiredOption(
      "--model <path|url>",
      "model file (stored in Redis), or an http(s) URL (fetched by workers started with --allow-model-urls)",
    )
    .option(
      "--model-dir <dir>",
      "do not store the model: name it by its path relative to this directory, which every worker is given as --model-dir",
    )
    .option("--max-model-mb <n>", MAX_MODEL_HELP, parseInteger, 1024)
    .requiredOption("--job <name>", "the job's name (letters, digits, . _ -)")
    .option("--format <format>", "conll, conllu or inline (default from the extension)")
    .option(
      "--decoder <name>",
      `a decoder of \`lagrange tag\`: ${PACKAGE_DEFAULTS.decoders.join(", ")} (default ${PACKAGE_DEFAULTS.defaultDecoder})`,
    )
    .option("--constraints <file>", "constraints file (stored with the job)")
    .option("--unlabeled", "the data has no gold label column")
    .option("--shard-size <n>", "sentences per shard", parseInteger, 1000)
    .option("--attempts <n>", "tries per shard before it is dead-lettered", parseInteger, 3)
    .option("--backoff <ms>", "first retry delay, doubled at each retry", parseInteger, 1000)
    .action(lazy(() => import("../commands/queue-submit.js"), "queueSubmit"));
  const work = queue
    .command("work")
    .description(
      "Tag shards until stopped (run one per core, on any number of machines); SIGTERM, Ctrl-C or SIGHUP puts the shard in hand back in the queue (another worker takes it at once) and exits within a second with 143, 130 or 129; survives Redis restarts; a refused password (or ACL) exits 2 at once",
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
    .option(
      "--model-dir <dir>",
      "serve jobs submitted with --model-dir: read their models from this directory (paths must stay inside it); without it, models come from Redis only",
    )
    .option(
      "--allow-model-urls",
      "fetch models of jobs that name an http(s) URL (off: anyone who can write to Redis could make every worker fetch any address)",
    )
    .option("--max-model-mb <n>", MAX_MODEL_HELP, parseInteger, 1024)
    .action(lazy(() => import("../commands/queue-work.js"), "queueWork"));
  work.addHelpText("after", WORKER_TRUST);
  const collect = queue
    .command("collect")
    .description(
      "Wait until every shard is done, then write the output in corpus order, atomically; shards that failed every try are listed with their errors and the command fails (with --partial, after writing the rest); an unknown job, or one whose submit was killed, fails at once",
    )
    .requiredOption("--job <name>", "the job's name")
    .requiredOption("--out <file>", "output file, written atomically")
    .option("--no-wait", "fail at once if some shards are not done")
    .option("--partial", "write the shards that are done even when some are dead")
    .action(lazy(() => import("../commands/queue-jobs.js"), "queueCollect"));
  queue
    .command("status")
    .description(
      "A job's progress (done, active, waiting, failed and to be retried, dead) and throughput",
    )
    .requiredOption("--job <name>", "the job's name")
    .option("--json", "as JSON")
    .action(lazy(() => import("../commands/queue-jobs.js"), "queueStatus"));
  queue
    .command("remove")
    .argument("[job]", "the job's name (or --job)")
    .description(
      "Remove a job: its queued shards, results, corpus and record, and its stored model when no other job uses it; the name can then be used again. Refused while workers tag its shards or its submit runs, unless --force",
    )
    .option("--job <name>", "the job's name")
    .option("--force", "remove it even while workers tag its shards (their results are dropped)")
    .action(lazy(() => import("../commands/queue-jobs.js"), "queueRemove"));
  for (const command of queue.commands) withRedis(command);
  const password = { "--redis-password-file": "password" } as const;
  declareFiles(submit, {
    inputs: {
      ...password,
      "--data": "data",
      "--model": "model",
      "--model-dir": "folder",
      "--constraints": "constraints",
    },
    outputs: [],
  });
  declareFiles(work, { inputs: { ...password, "--model-dir": "folder" }, outputs: [] });
  declareFiles(collect, { inputs: password, outputs: ["--out"] });
  for (const command of queue.commands) {
    if (command !== submit && command !== work && command !== collect) {
      declareFiles(command, { inputs: password, outputs: [] });
    }
  }
}
