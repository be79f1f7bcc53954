import { readFileSync, readdirSync } from "node:fs";
import { prepareTrainingData } from "./src/crf-model.ts";
import { chunkingPreset } from "./src/features/chunking.ts";
import { ObjectivePool } from "./src/train/pool.ts";
import { sumLoss } from "./src/train/types.ts";
function readSentences(path: string) {
  const out: Array<{ rows: string[][]; labels: string[] }> = [];
  let rows: string[][] = []; let labels: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") { if (rows.length > 0) out.push({ rows, labels }); rows = []; labels = []; continue; }
    const c = line.split(" "); rows.push(c.slice(0, -1)); labels.push(c.at(-1)!);
  }
  return out;
}
function threadTicks(): Map<string, number> {
  const m = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      m.set(`${tid}:${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}`, Number(after[11]) + Number(after[12]));
    } catch {}
  }
  return m;
}
const preset = chunkingPreset();
const sents = readSentences("/work/shared/datasets/conll2000/train.txt");
const data = prepareTrainingData(sents.map((s) => ({ attributes: preset.extract(s.rows), labels: s.labels })), { shared: true });
const enc = data.encoder; const K = enc.numWeights;
const w = new Float64Array(K); for (let j = 0; j < K; j++) w[j] = Math.sin(j) * 0.1;
const g = new Float64Array(K);
const reps = Number(process.argv[2] ?? "8");
async function run(label: string, f: () => unknown) {
  await f();
  const before = threadTicks(); const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let r = 0; r < reps; r++) await f();
  const wall = (performance.now() - t0) / 1000 / reps; const c = process.cpuUsage(c0);
  const after = threadTicks();
  const per: string[] = [];
  for (const [k, v] of after) { const d = (v - (before.get(k) ?? 0)) / 100 / reps; if (d > 0.01) per.push(`${k}=${d.toFixed(3)}`); }
  console.log(label, "wall/pass", wall.toFixed(3), "cpu/pass", ((c.user + c.system) / 1e6 / reps).toFixed(3), "threads:", per.join(" "));
}
await run("1 thread ", () => { g.fill(0); return sumLoss(enc, 0, enc.numInstances, w, g); });
const pool = await ObjectivePool.open(enc, { threads: 2, encoderModule: enc.restoreModule, descriptor: enc.descriptor() });
pool.weights.set(w);
await run("2 threads", () => pool.evaluate(pool.weights, g));
// Overhead outside the shards: weights broadcast is free (shared), the reduction is K adds.
const t0 = performance.now();
for (let r = 0; r < 20; r++) { const s = new Float64Array(K); for (let j = 0; j < K; j++) g[j] = g[j]! + s[j]!; }
console.log("reduction of", K, "doubles:", ((performance.now() - t0) / 20).toFixed(2), "ms");
await pool.close();
