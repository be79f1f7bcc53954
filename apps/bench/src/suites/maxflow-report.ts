import { markdownTable, targetsTable } from "../report.js";
import type { InstanceResult, MaxflowBenchResult, Target } from "./maxflow-results.js";

export function targets(
  instances: readonly InstanceResult[],
  kind: "measured" | "recorded",
): Target[] {
  const find = (name: string) => instances.find((i) => i.name === name);
  const ratio = (name: string, label: string, cppRecorded: string): Target => {
    const r = find(name);
    if (r === undefined || r.ratioTotal === null) {
      return { name: label, value: "not run", met: null };
    }
    return {
      name: label,
      value: `${r.ratioTotal.toFixed(2)}× (${time(r.lagrange.totalMs)} vs ${time(r.cpp!.totalMs)}${kind === "recorded" ? `; recorded on another machine: ${cppRecorded}` : ""}; TS kernel ${(r.lagrangeJs.totalMs / r.cpp!.totalMs).toFixed(2)}×)`,
      met: r.ratioTotal <= 1.5,
    };
  };
  const seq = find("seq_n400_L21");
  const exactAll = instances.every((i) => i.exact && (i.updates?.exact ?? true));
  return [
    {
      name: "exact on every instance run (flows, both cuts, cut capacity = flow, every update round)",
      value: `${instances.filter((i) => i.exact && (i.updates?.exact ?? true)).length} of ${instances.length}`,
      met: exactAll,
    },
    ratio("grid_512x512_seg", "grid 512²: build + maxflow within 1.5× of C++", "11.0 ms (int)"),
    ratio(
      "seq_n400_L21",
      "seq n = 400, L = 21: build + maxflow within 1.5× of C++",
      "327 µs (int)",
    ),
    seq?.updates == null
      ? { name: "seq_n400_L21: reuse ≥ 3× faster than from scratch", value: "not run", met: null }
      : {
          name: "seq_n400_L21: reuse ≥ 3× faster than from scratch",
          value: `${(seq.updates.lagrange.freshMs / seq.updates.lagrange.reuseMs).toFixed(2)}× (${time(seq.updates.lagrange.freshMs)} vs ${time(seq.updates.lagrange.reuseMs)} per round; TS kernel ${(seq.updates.lagrangeJs.freshMs / seq.updates.lagrangeJs.reuseMs).toFixed(2)}×; C++ ${seq.updates.cpp === null ? "–" : `${(seq.updates.cpp.freshMs / seq.updates.cpp.reuseMs).toFixed(2)}×`})`,
          met: seq.updates.lagrange.freshMs / seq.updates.lagrange.reuseMs >= 3,
        },
  ];
}

/** A duration in ms, with a unit that keeps 3 significant digits. */
export function time(ms: number): string {
  const [value, unit] = ms >= 1 ? [ms, "ms"] : ms >= 1e-3 ? [ms * 1e3, "µs"] : [ms * 1e6, "ns"];
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit}`;
}

const ratioText = (x: number | null) => (x === null ? "–" : `${x.toFixed(2)}×`);

export function maxflowMarkdown(r: MaxflowBenchResult): string {
  const withUpdates = r.instances.filter((i) => i.updates !== null);
  const cpp = r.reference.kind === "measured" ? "C++" : "C++ (recorded)";
  return [
    `### maxflow (Boykov–Kolmogorov: @lagrange/mincut vs Kolmogorov's MAXFLOW${r.setup.quick ? " — quick smoke run" : ""})`,
    "",
    `Reference: ${r.reference.description}.${r.reference.kind === "recorded" ? ` **Not measured in this run** (${r.reference.reason}): the C++ columns are the fixtures' recorded figures from another machine, so the ratios compare machines as well as implementations.` : ""}`,
    "",
    `Lagrange runs its default kernel (the algorithm as WebAssembly emitted by TypeScript); "TS kernel" is the same algorithm in TypeScript on the same typed arrays (the fallback where WebAssembly is missing). Per instance: the median of ${r.setup.samples} samples, each repeating its loop for ≥ ${r.setup.minSampleMs} ms after a warm-up. build = addNodes + addEdges (all edge lines) + addTerminalWeightsMany (all t lines) into one graph reused through reset() (C++: new Graph, add_node, one add_edge per edge line, one add_tweights per t line, delete); maxflow() alone has a clock read around each call (${r.setup.clockReadNs.toFixed(0)} ns here for performance.now()); total = build + maxflow() in one loop. Ratios are Lagrange ÷ C++ (> 1: Lagrange slower). "exact": with both kernels, flow = expected.json, both cuts = the .cut.txt lines character for character, their capacity = the flow. Node ${r.node}, ${r.cpu}.`,
    "",
    markdownTable(
      [
        "instance",
        "n",
        "m",
        "exact",
        "build",
        "maxflow()",
        "total",
        "TS kernel maxflow()",
        `${cpp} build`,
        `${cpp} maxflow()`,
        `${cpp} total`,
        "total ratio",
        "maxflow() ratio",
        "TS kernel maxflow() ratio",
      ],
      r.instances.map((i) => [
        `\`${i.name}\``,
        i.n,
        i.m,
        i.exact ? "yes" : "**no**",
        time(i.lagrange.buildMs),
        time(i.lagrange.maxflowMs),
        time(i.lagrange.totalMs),
        time(i.lagrangeJs.maxflowMs),
        i.cpp === null ? "–" : time(i.cpp.buildMs),
        i.cpp === null ? "–" : time(i.cpp.maxflowMs),
        i.cpp === null ? "–" : time(i.cpp.totalMs),
        ratioText(i.ratioTotal),
        ratioText(i.ratioMaxflow),
        ratioText(i.ratioMaxflowJs),
      ]),
    ),
    ...(withUpdates.length === 0
      ? []
      : [
          "**Update rounds** (terminal capacities change, edges stay: the min-cut slave between DD iterations), time per round: fresh = build the round's graph + maxflow(); reuse = setTerminalWeights on the changed nodes + maxflow(true) on the previous round's graph (C++: add_tweights + mark_node + maxflow(true)).",
          "",
          markdownTable(
            [
              "instance",
              "rounds",
              "exact",
              "fresh",
              "reuse",
              "reuse speed-up",
              "TS kernel fresh",
              "TS kernel reuse",
              `${cpp} fresh`,
              `${cpp} reuse`,
              "C++ speed-up",
              "reuse ratio",
            ],
            withUpdates.map((i) => {
              const u = i.updates!;
              return [
                `\`${i.name}\``,
                u.rounds,
                u.exact ? "yes" : "**no**",
                time(u.lagrange.freshMs),
                time(u.lagrange.reuseMs),
                `${(u.lagrange.freshMs / u.lagrange.reuseMs).toFixed(2)}×`,
                time(u.lagrangeJs.freshMs),
                time(u.lagrangeJs.reuseMs),
                u.cpp === null ? "–" : time(u.cpp.freshMs),
                u.cpp === null ? "–" : time(u.cpp.reuseMs),
                u.cpp === null ? "–" : `${(u.cpp.freshMs / u.cpp.reuseMs).toFixed(2)}×`,
                u.cpp === null ? "–" : `${(u.lagrange.reuseMs / u.cpp.reuseMs).toFixed(2)}×`,
              ];
            }),
          ),
        ]),
    "**Targets**",
    "",
    targetsTable(r.targets),
  ].join("\n");
}
