import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SystemJob, SystemReport } from "./protocol.js";

const ENTRY = new URL("./run-system.ts", import.meta.url);

/** Runs one system in a fresh Node process (its own heap and peak RSS) and reads its report. */
export async function runSystem(
  system: "lagrange" | "crfsuite",
  job: Omit<SystemJob, "workDir">,
): Promise<SystemReport> {
  const workDir = await mkdtemp(join(tmpdir(), `lagrange-bench-${system}-`));
  try {
    const jobFile = join(workDir, "job.json");
    const reportFile = join(workDir, "report.json");
    await writeFile(jobFile, JSON.stringify({ ...job, workDir }));
    const child = spawn(
      process.execPath,
      [
        "--conditions=lagrange-source",
        "--import",
        "tsx",
        ENTRY.pathname,
        system,
        jobFile,
        reportFile,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let log = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      log += chunk;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`${system} run failed (exit code ${code})`);
    const report = JSON.parse(await readFile(reportFile, "utf8")) as SystemReport;
    // CRFsuite logs "***** Iteration #k *****" once per L-BFGS iteration, and its feature count.
    const iterations = (log.match(/\*{5} Iteration #\d+/g) ?? []).length;
    const features = /Number of features: (\d+)/.exec(log)?.[1];
    return {
      ...report,
      ...(report.trainIterations === undefined && iterations > 0
        ? { trainIterations: iterations }
        : {}),
      ...(report.features === undefined && features !== undefined
        ? { features: Number(features) }
        : {}),
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
