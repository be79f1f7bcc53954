import { readFileSync } from "node:fs";
import { prepareTrainingData } from "./src/crf-model.ts";
import { chunkingPreset } from "./src/features/chunking.ts";
function readSentences(path: string) {
  const out: Array<{ rows: string[][]; labels: string[] }> = [];
  let rows: string[][] = []; let labels: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") { if (rows.length > 0) out.push({ rows, labels }); rows = []; labels = []; continue; }
    const c = line.split(" "); rows.push(c.slice(0, -1)); labels.push(c.at(-1)!);
  }
  return out;
}
const preset = chunkingPreset();
const sents = readSentences("/work/shared/datasets/conll2000/train.txt");
const data = prepareTrainingData(sents.map((s) => ({ attributes: preset.extract(s.rows), labels: s.labels })));
const enc = data.encoder; const K = enc.numWeights;
const w = new Float64Array(K); for (let j = 0; j < K; j++) w[j] = Math.sin(j) * 0.1;
const g = new Float64Array(K);
for (let r = 0; r < 12; r++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  g.fill(0); enc.rangeLoss(0, enc.numInstances, w, g, 1);
  console.log("wall", ((performance.now() - t0) / 1000).toFixed(3), "cpu", (process.cpuUsage(c0).user / 1e6).toFixed(3));
}
