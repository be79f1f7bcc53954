import { getPreset, modelFromTraining, prepareTrainingData } from "@lagrange/chain-crf";
import { decodingConstraints } from "/work/main/apps/cli/src/commands/model-io.ts";
import { loadData } from "/work/main/apps/cli/src/data-source.ts";

const train = await loadData("umass-citations:train", { malformed: "skip" });
const dev = await loadData("umass-citations:dev", { malformed: "skip" });
const preset = getPreset("citation");

const seqs = train.sentences.map((s) => ({
  attributes: preset.extract(s.tokens.map((t: string) => [t])),
  labels: s.labels!,
}));
const data = prepareTrainingData(seqs, {});
const enc = data.encoder;
const K = enc.numWeights;
const constraints = decodingConstraints(data.labels.names(), "hierarchical-BIO")!;
const w = new Float64Array(K);
for (let j = 0; j < K; j++) w[j] = Math.sin(j) * 0.1;
const g = new Float64Array(K);
const mode = process.argv[2] ?? "plain";
if (mode === "constrained")
  (enc as unknown as { setConstraints(c: unknown): void }).setConstraints(constraints);
console.log("K", K, "L", enc.numLabels, "instances", enc.numInstances);
for (let r = 0; r < 3; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  g.fill(0);
  const loss = enc.rangeLoss(0, enc.numInstances, w, g, 1);
  console.log(
    mode,
    "pass wall",
    ((performance.now() - t0) / 1000).toFixed(3),
    "cpu",
    (process.cpuUsage(c0).user / 1e6).toFixed(3),
    "loss",
    loss,
  );
}
const model = modelFromTraining(data, w, { preset: "citation", settings: {}, constraints });
const devAttrs = dev.sentences.map((s) => preset.extract(s.tokens.map((t: string) => [t])));
let tokens = 0;
for (const a of devAttrs) tokens += a.length;
for (let r = 0; r < 3; r++) {
  const t0 = performance.now();
  for (const a of devAttrs) model.tag(a);
  const dt = (performance.now() - t0) / 1000;
  console.log("tag", tokens, "tokens", (tokens / dt).toFixed(0), "tokens/s");
}
