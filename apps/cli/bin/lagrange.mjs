#!/usr/bin/env node
// The `lagrange` binary: a small supervisor in plain Node that runs the CLI in a child process and
// makes every signal stop it. JavaScript signal handlers run only when the event loop turns, so a
// command deep in synchronous work (a long L-BFGS evaluation, a WebAssembly solve, a blocked
// open()) cannot see Ctrl-C by itself; this process always can. It passes SIGINT, SIGTERM,
// SIGHUP, SIGQUIT and every other signal that would end it (STOP_SIGNALS) on to the child, whose
// own handlers stop the work at its next checkpoint, remove partial outputs and exit 128 + the
// signal's number (130, 143, 129, 131) with one line. If the child has not exited GRACE_MS after the
// first signal (or at a second signal), it is killed, the temporary files it registered over the
// IPC channel (apps/cli/src/interruption.ts) are removed, and this process prints that line and
// exits with that code itself. A child killed by another signal (the out-of-memory killer's
// SIGKILL) is reported in one line and exits 128 + the signal's number.
//
// The child is the built bundle, dist/lagrange.js, in an installed package (which ships dist/ and
// no src/), and the TypeScript sources in a checkout (src/ present), so that what runs is what was
// just edited: the workspace packages resolve to their sources under the "lagrange-source" export
// condition, with tsx. `pnpm --filter @lagrange/cli build` writes dist/ (also `prepack`).
//
// Help and the version start no work and write no file: an installed binary prints them in this
// very process (one Node start-up, not two).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

/** How long the child has, after the first signal, to stop on its own. */
const GRACE_MS = 500;
/**
 * The signals a command stops on (its exit code, as for any signal: 128 + the signal's number):
 * every one that ends a process by default and can be caught, but SIGUSR1 (Node's debugger) and
 * SIGPROF (V8's profiler). The same list as STOP_SIGNALS in src/interruption.ts (a test compares).
 * @type {readonly NodeJS.Signals[]}
 */
const STOP_SIGNALS = /** @type {NodeJS.Signals[]} */ ([
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGTERM",
  "SIGUSR2",
  "SIGALRM",
  "SIGVTALRM",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGPWR",
]).filter((name) => constants.signals[name] !== undefined);

const args = process.argv.slice(2);
const source = new URL("../src/main.ts", import.meta.url);
// A checkout runs its sources, unless LAGRANGE_CLI_BUNDLE=1 asks for dist/ (the integration test
// tier builds it once at its start and sets the variable: the same code, without tsx compiling
// the sources again at each of the binary's hundreds of starts).
const checkout = existsSync(source) && process.env.LAGRANGE_CLI_BUNDLE !== "1";

if (!checkout && onlyHelp(args)) {
  // By URL, as supervise() runs it: the type check then leaves the bundle alone.
  await import(new URL("../dist/lagrange.js", import.meta.url).href);
} else {
  supervise(
    checkout
      ? await sourceEntry()
      : [fileURLToPath(new URL("../dist/lagrange.js", import.meta.url))],
  );
}

/**
 * `lagrange`, `lagrange [help] [command] [--help | --help-all]`, `lagrange --version`: nothing
 * to stop.
 * @param {readonly string[]} argv
 */
function onlyHelp(argv) {
  const last = argv.at(-1);
  return (
    argv.length === 0 ||
    argv[0] === "help" ||
    last === "--help" ||
    last === "--help-all" ||
    last === "-h" ||
    (argv.length === 1 && (last === "--version" || last === "-V"))
  );
}

/** Node's arguments that run the sources: tsx from this workspace, not the working directory. */
async function sourceEntry() {
  const { createRequire } = await import("node:module");
  const { pathToFileURL } = await import("node:url");
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return ["--conditions=lagrange-source", "--import", tsx, fileURLToPath(source)];
}

/**
 * Under an address-space limit (`ulimit -v`, `prlimit --as`, a scheduler's h_vmem), V8 reserves
 * about 10 GB of address space per WebAssembly memory for the trap handler's guard regions, and
 * without them a memory's maximum (4 GiB when it declares none, as tsx's lexers do): every kernel
 * and tsx itself then fail, however much is allowed. So there, and only there (explicit bounds
 * checks cost the kernels time; see docs/security.md), the trap handler is off and a memory may
 * reserve a sixteenth of the limit at most. Worker threads share the process's V8 flags. glibc's
 * malloc arenas (64 MB of address space for each of Node's threads) are kept to two.
 * @returns {{ flags: string[], env: Record<string, string> }}
 */
function addressSpaceSettings() {
  const none = { flags: [], env: {} };
  if (process.execArgv.some((flag) => flag.startsWith("--disable-wasm-trap-handler"))) return none;
  let limit;
  try {
    limit = /^Max address space +(\d+) /m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
  } catch {
    return none; // No /proc (macOS): no way to tell, and no limit is the usual case.
  }
  if (limit === undefined) return none;
  const pages = Math.max(256, Math.floor(Number(limit) / 16 / 65536));
  return {
    flags: ["--disable-wasm-trap-handler", `--wasm-max-mem-pages=${pages}`],
    env: { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2" },
  };
}

/** @param {readonly string[]} entry Node's arguments that run the command */
function supervise(entry) {
  const limited = addressSpaceSettings();
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...limited.flags, ...entry, ...args],
    {
      stdio: ["inherit", "inherit", "inherit", "ipc"],
      // Tells the child to register its temporary files here (it removes the variable at once).
      env: { ...process.env, ...limited.env, LAGRANGE_SUPERVISOR: "1" },
    },
  );
  /** @type {Set<string>} Temporary output files the child has open, to remove when it is killed. */
  const temporaryFiles = new Set();
  /** The child has written its own line on how the command ended. */
  let reported = false;
  child.on("message", (received) => {
    const message = /** @type {{ lagrange?: unknown, op?: unknown, path?: unknown } | null} */ (
      received
    );
    if (message?.lagrange === "final-line") reported = true;
    if (message?.lagrange !== "temporary-file" || typeof message.path !== "string") return;
    if (message.op === "add") temporaryFiles.add(message.path);
    else temporaryFiles.delete(message.path);
  });

  /** @type {NodeJS.Signals | undefined} */
  let stoppedBy;
  let killed = false;
  /** @type {NodeJS.Timeout | undefined} */
  let grace;
  const kill = () => {
    killed = true;
    child.kill("SIGKILL");
  };
  for (const name of STOP_SIGNALS) {
    process.on(name, () => {
      if (stoppedBy !== undefined) return kill();
      stoppedBy = name;
      // A terminal's Ctrl-C reaches the child too: the child takes this copy for the same event.
      child.kill(name);
      grace = setTimeout(kill, GRACE_MS);
    });
  }

  child.on("error", (error) => {
    say(`lagrange: cannot start the command: ${error.message}`);
    process.exit(1);
  });
  // 'close', not 'exit': every message the child sent (a file it registered) has been read.
  child.on("close", (code, signal) => {
    clearTimeout(grace);
    // The child removes its own temporary files unless it was killed: whatever is left was its.
    for (const path of temporaryFiles) {
      try {
        unlinkSync(path);
      } catch {
        // Committed (renamed) or removed already.
      }
    }
    if (signal === null) process.exit(code ?? 1);
    // Killed only after a stop signal: stoppedBy is set then.
    const name = /** @type {NodeJS.Signals} */ (killed ? stoppedBy : signal);
    const exitCode = 128 + (constants.signals[name] ?? 0);
    if (STOP_SIGNALS.includes(name)) {
      // Killed while it wrote its own line (the grace period ran out meanwhile): one line is enough.
      if (!(killed && reported)) say(`lagrange: stopped by ${name}; no partial output was kept`);
    } else {
      const why =
        name === "SIGKILL"
          ? " (by another process, or by the system when memory ran out)"
          : name === "SIGABRT"
            ? " (Node aborted: out of memory, or a crash)"
            : "";
      say(`lagrange: the command was killed by ${name}${why}; no partial output was kept`);
    }
    process.exit(exitCode);
  });
}

/** @param {string} line */
function say(line) {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // Nowhere left to report; the exit code still tells.
  }
}
