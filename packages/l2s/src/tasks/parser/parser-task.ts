import type { FeatureSink, Features, Search, SearchTask } from "../../search/types.js";
import { ArcHybridState, NONE, REDUCE_LEFT, SHIFT } from "./arc-hybrid.js";
import {
  DirectedSink,
  SentenceAtoms,
  writeConfigurationFeatures,
  writeRelationFeatures,
} from "./features.js";
import { DynamicOracle, GoldTree, staticOracle } from "./oracle.js";

/** A sentence to parse: words and POS tags, with the gold tree when it is known. */
export interface ParseExample {
  readonly words: readonly string[];
  readonly tags: readonly string[];
  /** Gold heads: word w's head at index w − 1, 0 for ROOT. */
  readonly heads?: ArrayLike<number>;
  /** Gold relation names, one per word. */
  readonly relations?: readonly string[];
  /** Where the sentence came from (`file:line`), for messages. */
  readonly source?: string;
}

/** A parse: word w's head at `heads[w − 1]` (0 = ROOT), and relation names when labelled. */
export interface ParseOutput {
  readonly heads: Int32Array;
  readonly relations?: readonly string[];
}

export interface ArcHybridParserOptions {
  /** The relation vocabulary ({@link relationsOf}); action r of the "relation" space is `relations[r]`. */
  readonly relations: readonly string[];
  /**
   * `dynamic` (default): the reference is every zero-cost transition and `referenceCosts` the
   * dynamic oracle's exact costs, from any configuration, so every roll-in works. `static`: the
   * reference is the canonical gold transition, which is only right on the gold path: train it
   * with a reference roll-in (off the path it still names a valid transition, but not a good one).
   */
  readonly oracle?: "dynamic" | "static";
  /** Predict a relation for each arc (a second action space). Default true. */
  readonly labelled?: boolean;
}

const TRANSITIONS = 3;
/** The output of a run whose output nobody reads (`search.outputWanted` false). */
const NO_OUTPUT: ParseOutput = { heads: new Int32Array(0) };

/** What a task derives from an example once (WeakMap-cached): hashed atoms and the gold tree. */
interface Prepared {
  readonly atoms: SentenceAtoms;
  readonly gold: GoldTree | undefined;
  /** Gold relation ids, when the example has relations (and the task is labelled); NONE where unknown. */
  readonly goldRelations: Int32Array | undefined;
  /** A gold relation missing from the parser's vocabulary: an error only when training on it. */
  readonly unknownRelation: string | undefined;
}

/**
 * The arc-hybrid dependency parser as an L2S task (chang2016, Algorithm 6): one `predict` per
 * transition over the valid ones (action space "transition": SHIFT, REDUCE_LEFT, REDUCE_RIGHT),
 * and, when labelled, one per arc for its relation (space "relation"), taken on the configuration
 * the REDUCE applies to. Tags: 2·step for step's transition, 2·step + 1 for its relation.
 *
 * Loss: one per word whose head is wrong, or (labelled) whose head is right and relation wrong —
 * the number of words LAS counts as wrong — reported as each word is attached. A word with a
 * wrong head is wrong whatever its relation, so its relation decision has every relation as
 * reference at cost 0.
 *
 * No decision declares `conditionOn`: the features read the whole configuration. The feature
 * closures read the live state, which is what `predict` decides on while it runs.
 */
export function arcHybridParser(
  options: ArcHybridParserOptions,
): SearchTask<ParseExample, ParseOutput> {
  const relationNames = [...options.relations];
  const labelled = options.labelled ?? true;
  const oracleKind = options.oracle ?? "dynamic";
  if (oracleKind !== "dynamic" && oracleKind !== "static") {
    throw new RangeError(`oracle ${String(oracleKind)}: expected "dynamic" or "static"`);
  }
  if (labelled && relationNames.length === 0) {
    throw new RangeError("a labelled parser needs at least one relation (options.relations)");
  }
  const relationIds = new Map<string, number>();
  relationNames.forEach((r, i) => {
    if (relationIds.has(r)) throw new RangeError(`relation ${JSON.stringify(r)} listed twice`);
    relationIds.set(r, i);
  });

  const prepared = new WeakMap<ParseExample, Prepared>();
  const prepare = (example: ParseExample): Prepared => {
    let p = prepared.get(example);
    if (p === undefined) {
      p = prepareExample(example, labelled ? relationIds : undefined);
      prepared.set(example, p);
    }
    return p;
  };

  // Reused from run to run: roll-outs run the task thousands of times per pass (the engine
  // copies what it keeps of a request).
  const state = new ArcHybridState();
  const oracle = new DynamicOracle();
  const directed = new DirectedSink();
  const allowed: number[] = [];
  const costsByAction: number[] = [0, 0, 0];
  const referenceCosts: number[] = [];
  const zeroCost: number[] = [];
  const everyRelation = relationNames.map((_, r) => r);
  const noRelationCost = relationNames.map(() => 0);
  const relationCosts = relationNames.map(() => 1);
  let atoms: SentenceAtoms;
  let left = false;
  const transitionFeatures: Features = (sink: FeatureSink) =>
    writeConfigurationFeatures(state, atoms, sink);
  const relationFeatures: Features = (sink: FeatureSink) =>
    writeRelationFeatures(state, atoms, left, directed, sink);

  const spaces = [{ name: "transition", actions: TRANSITIONS }];
  if (labelled) spaces.push({ name: "relation", actions: relationNames.length });

  return {
    name: labelled ? "arc-hybrid parser (labelled)" : "arc-hybrid parser",
    actionSpaces: spaces,
    run(example: ParseExample, search: Search): ParseOutput {
      const p = prepare(example);
      atoms = p.atoms;
      const gold = p.gold;
      const n = example.words.length;
      state.reset(n);
      const advise = search.training && gold !== undefined;
      if (advise && p.unknownRelation !== undefined) {
        throw new RangeError(
          `${example.source ?? "a training sentence"}: relation ${JSON.stringify(p.unknownRelation)} is not in the parser's relations (${relationNames.length} of them)`,
        );
      }
      for (let step = 0; !state.isTerminal(); step++) {
        state.validActions(allowed);
        let reference: number | number[] | undefined;
        let costs: number[] | undefined;
        if (advise) {
          if (oracleKind === "dynamic") {
            oracle.costs(state, gold, costsByAction);
            referenceCosts.length = 0;
            zeroCost.length = 0;
            for (const a of allowed) {
              const c = costsByAction[a]!;
              referenceCosts.push(c);
              if (c === 0) zeroCost.push(a);
            }
            reference = zeroCost;
            costs = referenceCosts;
          } else {
            reference = staticOracle(state, gold);
          }
        }
        const action = search.predict({
          features: transitionFeatures,
          allowed,
          ...(reference === undefined ? {} : { reference }),
          ...(costs === undefined ? {} : { referenceCosts: costs }),
          tag: 2 * step,
          learner: 0,
        });
        if (action === SHIFT) {
          state.apply(action);
          continue;
        }
        let relation = NONE;
        if (labelled) {
          left = action === REDUCE_LEFT;
          const dependent = state.s(0);
          const head = left ? state.front : state.s(1);
          let relationReference: number | readonly number[] | undefined;
          let relationReferenceCosts: readonly number[] | undefined;
          if (advise && p.goldRelations !== undefined) {
            if (gold.heads[dependent] === head) {
              const r = p.goldRelations[dependent - 1]!;
              relationCosts[r] = 0;
              relationReference = r;
              relationReferenceCosts = relationCosts;
            } else {
              relationReference = everyRelation;
              relationReferenceCosts = noRelationCost;
            }
          }
          relation = search.predict({
            features: relationFeatures,
            ...(relationReference === undefined ? {} : { reference: relationReference }),
            ...(relationReferenceCosts === undefined
              ? {}
              : { referenceCosts: relationReferenceCosts }),
            tag: 2 * step + 1,
            learner: 1,
          });
          if (typeof relationReference === "number") relationCosts[relationReference] = 1;
        }
        const dependent = state.apply(action);
        state.setRelation(dependent, relation);
        if (gold !== undefined) {
          const wrongHead = state.heads[dependent] !== gold.heads[dependent];
          const wrongRelation =
            labelled &&
            p.goldRelations !== undefined &&
            relation !== p.goldRelations[dependent - 1];
          if (wrongHead || wrongRelation) search.loss(1);
        }
      }
      if (!search.outputWanted) return NO_OUTPUT;
      const heads = state.headsOut();
      if (!labelled) return { heads };
      const relations = new Array<string>(n);
      for (let w = 1; w <= n; w++) relations[w - 1] = relationNames[state.relations[w]!]!;
      return { heads, relations };
    },
  };
}

function prepareExample(
  example: ParseExample,
  relationIds: ReadonlyMap<string, number> | undefined,
): Prepared {
  const where = example.source === undefined ? "" : `${example.source}: `;
  const n = example.words.length;
  let atoms: SentenceAtoms;
  try {
    atoms = new SentenceAtoms(example.words, example.tags);
  } catch (error) {
    throw new RangeError(`${where}${(error as Error).message}`);
  }
  let gold: GoldTree | undefined;
  if (example.heads !== undefined) {
    if (example.heads.length !== n) {
      throw new RangeError(`${where}${n} words but ${example.heads.length} gold heads`);
    }
    try {
      gold = new GoldTree(example.heads);
    } catch (error) {
      throw new RangeError(`${where}${(error as Error).message}`);
    }
  }
  let goldRelations: Int32Array | undefined;
  let unknownRelation: string | undefined;
  if (relationIds !== undefined && example.relations !== undefined) {
    if (example.relations.length !== n) {
      throw new RangeError(`${where}${n} words but ${example.relations.length} gold relations`);
    }
    goldRelations = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const name = example.relations[i]!;
      const r = relationIds.get(name) ?? NONE;
      if (r === NONE) unknownRelation ??= name;
      goldRelations[i] = r;
    }
  }
  return { atoms, gold, goldRelations, unknownRelation };
}

/** The relation vocabulary of some examples, sorted (by UTF-16 code units). */
export function relationsOf(examples: Iterable<ParseExample>): string[] {
  const seen = new Set<string>();
  for (const example of examples) for (const r of example.relations ?? []) seen.add(r);
  return [...seen].sort();
}
