import {
  type ConstraintTemplate,
  candidateTemplates,
  parseConstraintsFile,
  RULE_FAMILIES,
  SegmentIndex,
  serializeConstraintsFile,
  type TemplateInstance,
} from "@lagrange/constraint-templates";
import { AbortError, constraintViolation, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { minedRuleStats, minedRulesFile } from "./mined-rules-file.js";
import {
  mineRules,
  PAPER_COST_FLOOR,
  RULE_COST_POLICIES,
  ruleCost,
  smoothedConfidence,
} from "./mining.js";
import {
  DEFAULT_RULE_DELIMITERS,
  type MinedRule,
  type RuleFamily,
  type RuleSentence,
} from "./mining-options.js";

const NER = ["O", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-PER", "I-PER"];
const nerIndex = new SegmentIndex(NER, "IOB2");
const id = (name: string) => {
  const i = NER.indexOf(name);
  if (i < 0) throw new Error(name);
  return i;
};

/**
 * News-like sentences with a planted rule: every "(" sits between an ORG token and a LOC token
 * ("Dynamo Batumi ( Georgia )"), except in `broken` of them, where an O token follows it.
 */
function plantedCorpus(count: number, broken: number, seed: number): RuleSentence[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: RuleSentence[] = [];
  for (let s = 0; s < count; s++) {
    const tokens: string[] = [];
    const labels: number[] = [];
    const push = (w: string, l: string) => {
      tokens.push(w);
      labels.push(id(l));
    };
    const filler = () => {
      for (let k = Math.floor(random() * 4); k > 0; k--)
        push(pick(["the", "said", "on", "a"]), "O");
    };
    filler();
    if (random() < 0.5) push(pick(["John", "Mary"]), "B-PER");
    filler();
    push(pick(["Dynamo", "Ajax"]), "B-ORG");
    push("Batumi", "I-ORG");
    push("(", "O");
    if (s < broken) push("the", "O");
    else push(pick(["Georgia", "Spain"]), "B-LOC");
    push(")", "O");
    filler();
    push(".", "O");
    out.push({ tokens, labels: Int32Array.from(labels) });
  }
  return out;
}

const find = (rules: readonly MinedRule[], ruleId: string) =>
  rules.find((r) => r.template.id === ruleId);

describe("mineRules on a planted rule", () => {
  it("recovers ORG ( LOC with its support, violations and confidence", async () => {
    const data = plantedCorpus(200, 6, 1);
    const mined = await mineRules(data, nerIndex, { minSupport: 5, minConfidence: 0.9 });
    const rule = find(mined.rules, "state-change:ORG|(|LOC");
    expect(rule).toBeDefined();
    expect(rule!.support).toBe(200);
    expect(rule!.violations).toBe(6);
    expect(rule!.violationMagnitude).toBe(6);
    expect(rule!.confidence).toBeCloseTo(194 / 200, 12);
    expect(rule!.cost).toBeGreaterThan(PAPER_COST_FLOOR);
    expect(rule!.template.describe()).toBe(
      'the token before "(" is ORG and the token after it is LOC',
    );
    // The after-side alone is broken where O follows: ")" always sits between LOC and O otherwise.
    const close = find(mined.rules, "state-change:LOC|)|O");
    expect(close?.support).toBe(200);
    expect(close?.violations).toBe(6);
    // An ORG token is followed by ORG or "(" (O): adjacency ORG→LOC never holds and is dropped.
    expect(find(mined.rules, "adjacency:ORG|LOC")).toBeUndefined();
    expect(mined.settings.delimiters.slice(0, DEFAULT_RULE_DELIMITERS.length)).toEqual(
      DEFAULT_RULE_DELIMITERS,
    );
    // Every kept rule passes the thresholds; the order is by cost, then support.
    for (const r of mined.rules) {
      expect(r.support).toBeGreaterThanOrEqual(5);
      expect(r.confidence).toBeGreaterThanOrEqual(0.9);
      expect(r.lift).toBeGreaterThanOrEqual(1);
    }
    for (let i = 1; i < mined.rules.length; i++) {
      expect(mined.rules[i - 1]!.cost).toBeGreaterThanOrEqual(mined.rules[i]!.cost);
    }
    const { neverFired, belowSupport, belowConfidence, belowLift } = mined.dropped;
    expect(mined.rules.length + neverFired + belowSupport + belowConfidence + belowLift).toBe(
      mined.candidates,
    );
  });

  it("drops the planted rule once the gold labels break it too often", async () => {
    const data = plantedCorpus(100, 20, 2);
    const mined = await mineRules(data, nerIndex, { minConfidence: 0.9 });
    expect(find(mined.rules, "state-change:ORG|(|LOC")).toBeUndefined();
    const loose = await mineRules(data, nerIndex, { minConfidence: 0.75 });
    expect(find(loose.rules, "state-change:ORG|(|LOC")?.violations).toBe(20);
  });

  it("finds frequent punctuation tokens as delimiters, and takes a given list as it is", async () => {
    const data = plantedCorpus(50, 0, 3).map((s) => ({
      tokens: s.tokens.map((w) => (w === "(" ? "[" : w)),
      labels: s.labels,
    }));
    const auto = await mineRules(data, nerIndex, { families: ["state-change"] });
    expect(auto.settings.delimiterSource).toBe("auto");
    expect(auto.settings.delimiters).toContain("[");
    expect(find(auto.rules, "state-change:ORG|[|LOC")?.support).toBe(50);
    const given = await mineRules(data, nerIndex, {
      families: ["state-change"],
      delimiters: [")"],
    });
    expect(given.settings.delimiters).toEqual([")"]);
    expect(given.rules.every((r) => r.template.spec.kind === "state-change")).toBe(true);
    expect(given.candidates).toBe(4 * 3);
  });

  it("leaves O out of the rules on request", async () => {
    const mined = await mineRules(plantedCorpus(40, 0, 4), nerIndex, { includeOutside: false });
    expect(mined.settings.keys).toEqual(["LOC", "ORG", "PER"]);
    for (const r of mined.rules) {
      const spec = r.template.spec as { first: string; second: string };
      expect([spec.first, spec.second]).not.toContain("O");
    }
  });

  it("rejects bad options and bad sentences with clear messages", async () => {
    const data = plantedCorpus(3, 0, 5);
    await expect(mineRules(data, nerIndex, { minSupport: 0 })).rejects.toThrow(/minSupport/);
    await expect(mineRules(data, nerIndex, { minConfidence: 1.5 })).rejects.toThrow(
      /minConfidence/,
    );
    await expect(mineRules(data, nerIndex, { smoothing: 0 })).rejects.toThrow(/smoothing/);
    await expect(
      mineRules(data, nerIndex, { families: ["singleton" as RuleFamily] }),
    ).rejects.toThrow(/not a rule family/);
    await expect(mineRules(data, nerIndex, { segments: ["nope"] })).rejects.toThrow(
      /no segment type or label "nope" \(its types: LOC, ORG, PER\)/,
    );
    await expect(mineRules([{ tokens: ["a", "b"], labels: [0, 99] }], nerIndex)).rejects.toThrow(
      /sentences\[0\]\.labels\[1\]: expected a label id in 0…6, got 99/,
    );
    await expect(mineRules([{ tokens: ["a"], labels: [0, 0] }], nerIndex)).rejects.toThrow(
      /1 tokens but 2 labels/,
    );
  });
});

/** Brute force: support by the premise's definition, violated instances by instantiation. */
function bruteForce(t: ConstraintTemplate, data: readonly RuleSentence[], index: SegmentIndex) {
  const spec = t.spec as { kind: RuleFamily; first: string; second: string; delimiter?: string };
  const inA = new Set(index.get(spec.first).inside);
  let support = 0;
  let violations = 0;
  let magnitude = 0;
  for (const s of data) {
    const n = s.labels.length;
    if (n === 0) continue; // no instance of any template (and templates need n ≥ 1)
    const labels = Int32Array.from(s.labels);
    const instance: TemplateInstance = { n, L: index.L, tokens: s.tokens };
    magnitude += t.violation(labels, instance);
    switch (spec.kind) {
      case "adjacency":
        for (let p = 0; p + 1 < n; p++) if (inA.has(labels[p]!)) support++;
        break;
      case "precedence":
        for (let p = 0; p < n; p++) if (inA.has(labels[p]!)) support++;
        break;
      case "state-change":
        for (let p = 1; p + 1 < n; p++) if (s.tokens[p] === spec.delimiter) support++;
        break;
      case "begin-end":
        if (inA.has(labels[0]!)) support++;
        break;
      case "presence-precedence":
        for (let p = 1; p < n; p++) if (inA.has(labels[p]!)) support++;
        break;
    }
    // One linear constraint per instance slot; a premise that does not fire cannot be violated.
    for (const c of t.instantiate(instance)) {
      if (constraintViolation(c, labels, index.L) > 0) violations++;
    }
  }
  return { support, violations, magnitude };
}

const LABEL_POOLS = [
  ["O", "B-a", "I-a", "B-b", "I-b", "B-c", "I-c"],
  ["B-x", "I-x", "B-y", "I-y"],
  // Hierarchical: nested keys overlap (every x/z token is also an x token).
  ["O", "B-x/B-z", "I-x/I-z", "I-x/B-w", "B-y", "I-y"],
];

describe("mineRules counts equal a brute-force recount through the templates", () => {
  it("for every candidate of every family, on random small data", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LABEL_POOLS),
        fc.array(
          fc.array(fc.tuple(fc.nat(), fc.constantFrom("w", ",", "(", "v", ";")), {
            minLength: 0,
            maxLength: 8,
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.boolean(),
        async (labelNames, raw, includeOutside) => {
          const index = new SegmentIndex(
            labelNames,
            labelNames.some((l) => l.includes("/")) ? "hierarchical-BIO" : "IOB2",
          );
          const data: RuleSentence[] = raw.map((tokens) => ({
            tokens: tokens.map(([, w]) => w),
            labels: Int32Array.from(tokens, ([y]) => y % labelNames.length),
          }));
          const delimiters = [",", "(", ";"];
          const mined = await mineRules(data, index, {
            minSupport: 1,
            minConfidence: 0,
            minLift: 0,
            delimiters,
            includeOutside,
          });
          const candidates = candidateTemplates(index, {
            families: RULE_FAMILIES,
            delimiters,
            includeOutside,
          });
          expect(mined.candidates).toBe(candidates.length);
          const byId = new Map(mined.rules.map((r) => [r.template.id, r]));
          expect(byId.size).toBe(mined.rules.length);
          for (const t of candidates) {
            const expected = bruteForce(t, data, index);
            const got = byId.get(t.id);
            if (expected.support === 0) {
              expect(got, t.id).toBeUndefined();
              continue;
            }
            expect(got, t.id).toBeDefined();
            expect({
              id: t.id,
              s: got!.support,
              v: got!.violations,
              m: got!.violationMagnitude,
            }).toEqual({
              id: t.id,
              s: expected.support,
              v: expected.violations,
              m: expected.magnitude,
            });
            expect(got!.confidence).toBeCloseTo(1 - expected.violations / expected.support, 12);
          }
          expect(mined.rules.length + mined.dropped.neverFired).toBe(candidates.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("cost policies", () => {
  const counts = fc
    .tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 100_000 }))
    .map(([a, b]) => ({ support: Math.max(a, b), violations: Math.min(a, b) }));
  const alpha = fc.double({ min: 0.01, max: 10, noNaN: true });
  const bar = fc.double({ min: 0, max: 1, noNaN: true });

  it("are finite and ≥ 0 for every count, smoothing and bar", () => {
    fc.assert(
      fc.property(counts, alpha, bar, (c, smoothing, minConfidence) => {
        for (const policy of RULE_COST_POLICIES) {
          const cost = ruleCost(policy, c, { smoothing, minConfidence });
          expect(Number.isFinite(cost), policy).toBe(true);
          expect(cost, policy).toBeGreaterThanOrEqual(0);
        }
        expect(ruleCost("paper", c, { smoothing, minConfidence })).toBeGreaterThanOrEqual(
          PAPER_COST_FLOOR,
        );
      }),
    );
  });

  it("never decrease with confidence at a fixed support (strictly for violation-rate)", () => {
    fc.assert(
      fc.property(counts, alpha, bar, (c, smoothing, minConfidence) => {
        fc.pre(c.violations > 0);
        const better = { support: c.support, violations: c.violations - 1 };
        for (const policy of RULE_COST_POLICIES) {
          const o = { smoothing, minConfidence };
          expect(ruleCost(policy, better, o), policy).toBeGreaterThanOrEqual(
            ruleCost(policy, c, o),
          );
        }
        expect(ruleCost("violation-rate", better, { smoothing })).toBeGreaterThan(
          ruleCost("violation-rate", c, { smoothing }),
        );
      }),
    );
  });

  it("follow their formulas", () => {
    const c = { support: 100, violations: 4 };
    expect(smoothedConfidence(c)).toBeCloseTo(97 / 102, 14);
    expect(ruleCost("paper", c)).toBeCloseTo(Math.log(97 / 102 / 0.9) + PAPER_COST_FLOOR, 14);
    expect(ruleCost("violation-rate", c)).toBeCloseTo(-Math.log(5 / 102), 14);
    expect(ruleCost("log-odds", c)).toBeCloseTo(Math.log(97 / 5), 14);
    expect(ruleCost("log-odds", { support: 10, violations: 9 })).toBe(0);
    expect(ruleCost("paper", { support: 10, violations: 5 })).toBe(PAPER_COST_FLOOR);
    expect(() => ruleCost("paper", { support: 3, violations: 4 })).toThrow(/violations ≤ support/);
    expect(() => ruleCost("log-odds", c, { smoothing: 0 })).toThrow(/α > 0/);
  });
});

describe("minedRulesFile", () => {
  it("round-trips through serializeConstraintsFile / parseConstraintsFile with its statistics", async () => {
    const mined = await mineRules(plantedCorpus(60, 2, 6), nerIndex, { cost: "log-odds" });
    expect(mined.rules.length).toBeGreaterThan(0);
    const file = minedRulesFile(mined, { data: "planted", metadata: { scheme: "IOB2" } });
    const text = serializeConstraintsFile(file);
    const parsed = parseConstraintsFile(text, { source: "r.json", expectedLabels: NER });
    expect(parsed.entries.map((e) => [e.template.id, e.penalty])).toEqual(
      mined.rules.map((r) => [r.template.id, r.cost]),
    );
    expect(parsed.entries.map((e) => e.template.describe())).toEqual(
      mined.rules.map((r) => r.template.describe()),
    );
    expect(parsed.metadata).toMatchObject({
      miner: "counting",
      data: "planted",
      scheme: "IOB2",
      cost: "log-odds",
      minSupport: 5,
      minConfidence: 0.9,
      candidates: mined.candidates,
    });
    const stats = minedRuleStats(parsed);
    expect(stats.size).toBe(mined.rules.length);
    for (const r of mined.rules) {
      expect(stats.get(r.template.id)).toMatchObject({
        support: r.support,
        violations: r.violations,
        violationMagnitude: r.violationMagnitude,
        cost: r.cost,
      });
      expect(stats.get(r.template.id)!.confidence).toBeCloseTo(r.confidence, 5);
    }
    // A second trip changes nothing.
    expect(serializeConstraintsFile(parsed)).toBe(text);
  });
});

describe("cancellation and progress", () => {
  it("stops at the next checkpoint once the signal fires, and reports progress until then", async () => {
    const data = plantedCorpus(20_000, 0, 7);
    const controller = new AbortController();
    const seen: number[] = [];
    const run = mineRules(data, nerIndex, {
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p.sentences);
        if (p.sentences > 0) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!).toBeLessThan(data.length);
  });

  it("refuses to start on an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      mineRules(plantedCorpus(5, 0, 8), nerIndex, { signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it("reports the end", async () => {
    const seen: { sentences: number; total: number }[] = [];
    await mineRules(plantedCorpus(10, 0, 9), nerIndex, { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ sentences: 10, total: 10 });
  });
});
