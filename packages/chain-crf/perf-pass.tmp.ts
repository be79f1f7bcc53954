import { readFileSync } from "node:fs";
import { prepareTrainingData } from "./src/crf-model.ts";
import { chunkingPreset } from "./src/features/chunking.ts";
import { ObjectivePool } from "./src/train/pool.ts";
import { sumLoss } from "./src/train/types.ts";

function readSentences(path: string) {
  const out: Array<{ rows: string[][]; labels: string[] }> = [];
  let rows: string[][] = [];
  let labels: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") {
      if (rows.length > 0) out.push({ rows, labels });
      rows = []; labels = [];
      continue;
    }
    const c = line.split(" ");
    rows.push(c.slice(0, -1)); labels.push(c.at(-1)!);
  }
  return out;
}
const preset = chunkingPreset();
const sents = readSentences("/work/shared/datasets/conll2000/train.txt");
const data = prepareTrainingData(sents.map((s) => ({ attributes: preset.extract(s.rows), labels: s.labels })), { shared: true });
const enc = data.encoder;
const K = enc.numWeights;
const w = new Float64Array(K);
for (let j = 0; j < K; j++) w[j] = Math.sin(j) * 0.1;
const g = new Float64Array(K);
function time(label: string, f: () => unknown, reps: number) {
  return (async () => {
    for (let r = 0; r < reps; r++) {
      const c0 = process.cpuUsage(); const t0 = performance.now();
      const v = await f();
      const dt = (performance.now() - t0) / 1000; const c = process.cpuUsage(c0);
      console.log(label, "wall", dt.toFixed(3), "cpu", ((c.user + c.system) / 1e6).toFixed(3), "loss", v);
    }
  })();
}
await time("1thread rangeLoss", () => { g.fill(0); return sumLoss(enc, 0, enc.numInstances, w, g); }, 4);
await time("1thread instanceLoss", () => { g.fill(0); let l = 0; for (let i = 0; i < enc.numInstances; i++) l += enc.instanceLoss(i, w, g, 1); return l; }, 2);
const pool = await ObjectivePool.open(enc, { threads: 2, encoderModule: enc.restoreModule, descriptor: enc.descriptor() });
await time("2threads pool", () => pool.evaluate(w, g), 5);
pool.weights.set(w);
await time("2threads pool (shared w)", () => pool.evaluate(pool.weights, g), 3);
await pool.close();
