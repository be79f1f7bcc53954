import type { Features, SearchTask } from "../search/types.js";

export interface EntityRelationExample {
  readonly entities: readonly { readonly features: Features; readonly type?: number }[];
  /** Candidate pairs n < m (indices into `entities`). */
  readonly pairs: readonly {
    readonly n: number;
    readonly m: number;
    readonly features: Features;
    readonly relation?: number;
  }[];
}

export interface EntityRelationOutput {
  readonly entityTypes: Int32Array;
  readonly relations: Int32Array;
}

export interface EntityRelationOptions {
  readonly entityTypes: readonly string[];
  /** Relation names; index 0 must be the "no relation" label, compatible with every type pair. */
  readonly relations: readonly string[];
  /**
   * Which relations may hold between a first argument of type `a` and a second of type `b`
   * (relation ids); "no relation" is always added. E.g. work_for only from person to organization.
   */
  readonly validRelations: (a: number, b: number) => readonly number[];
}

/**
 * chang2016's Algorithm 5 (joint entity and relation typing): type every entity, then every pair's
 * relation, allowed only the relations compatible with the two predicted types and conditioned on
 * them; each wrong decision costs 1. (The listing's typos are read as meant: `entity[n]`,
 * `output.relation_type[n,m]`, and the relation loss against the gold relation.)
 */
export function entityRelation(
  options: EntityRelationOptions,
): SearchTask<EntityRelationExample, EntityRelationOutput> {
  const T = options.entityTypes.length;
  const R = options.relations.length;
  if (T < 1 || R < 1)
    throw new RangeError("entity/relation typing needs ≥ 1 entity type and relation");
  // The valid sets are fixed per type pair: computed once, never per decision.
  const valid: Int32Array[] = [];
  for (let a = 0; a < T; a++) {
    for (let b = 0; b < T; b++) {
      const set = new Set<number>([0]);
      for (const r of options.validRelations(a, b)) {
        if (!Number.isInteger(r) || r < 0 || r >= R) {
          throw new RangeError(
            `validRelations(${options.entityTypes[a]}, ${options.entityTypes[b]}) lists ${r}: expected a relation id in 0…${R - 1}`,
          );
        }
        set.add(r);
      }
      valid.push(Int32Array.from([...set].sort((x, y) => x - y)));
    }
  }
  return {
    name: "entity-relation",
    actionSpaces: [
      { name: "entity-type", actions: T },
      { name: "relation", actions: R },
    ],
    run(example, search) {
      const K = example.entities.length;
      const entityTypes = new Int32Array(K);
      example.entities.forEach((entity, n) => {
        entityTypes[n] = search.predict({
          features: entity.features,
          ...(entity.type === undefined ? {} : { reference: entity.type }),
          tag: n,
          learner: 0,
        });
        if (entity.type !== undefined && entityTypes[n] !== entity.type) search.loss(1);
      });
      const relations = new Int32Array(example.pairs.length);
      example.pairs.forEach((pair, p) => {
        if (!(pair.n >= 0 && pair.n < pair.m && pair.m < K)) {
          throw new RangeError(`pair ${p} (${pair.n}, ${pair.m}): expected 0 ≤ n < m < ${K}`);
        }
        const allowed = valid[entityTypes[pair.n]! * T + entityTypes[pair.m]!]!;
        relations[p] = search.predict({
          features: pair.features,
          ...(pair.relation === undefined ? {} : { reference: pair.relation }),
          allowed,
          conditionOn: [pair.n, pair.m],
          tag: K * (pair.n + 1) + pair.m,
          learner: 1,
        });
        if (pair.relation !== undefined && relations[p] !== pair.relation) search.loss(1);
      });
      return { entityTypes, relations };
    },
  };
}
