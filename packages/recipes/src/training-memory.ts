import { TrainingMemoryError, type TrainingPreparation } from "@lagrange/chain-crf";

export interface TrainingMemoryBoundOptions {
  /** Bytes training may take; undefined: no bound (`onEstimate` still hears of every layout). */
  readonly limitBytes: number | undefined;
  /** The run trains a general CRF ({@link trainGeneralCrf}), which keeps its groups' chains too. */
  readonly general?: boolean;
  /** What the process holds already: the corpus and its attributes (default: its resident set now). */
  readonly inUseBytes?: () => number;
  /** A layout within the bound (one per CRF trained), and the bytes the run will reach. */
  readonly onEstimate?: (preparation: TrainingPreparation, neededBytes: number) => void;
}

/**
 * The {@link trainOnCorpus} option that bounds CRF training's memory: once the feature layout is
 * known, and before the trainer's buffers exist, a {@link TrainingMemoryError} when what the
 * process holds plus chain-crf's estimate of what training allocates (plus, for a general CRF,
 * every training group's position-specific chain: tokens × labels² floats) passes the bound.
 */
export function trainingMemoryBound(options: TrainingMemoryBoundOptions): {
  readonly onPrepared: (preparation: TrainingPreparation) => void;
} {
  const inUseBytes = options.inUseBytes ?? (() => process.memoryUsage().rss);
  return {
    onPrepared: (preparation) => {
      const { memory } = preparation;
      const inUse = inUseBytes();
      const extra =
        options.general === true
          ? {
              bytes: 8 * memory.tokens * memory.labels * memory.labels,
              what: "the general CRF's group chains (tokens × labels²)",
            }
          : undefined;
      const needed = inUse + memory.totalBytes + (extra?.bytes ?? 0);
      const limit = options.limitBytes;
      if (limit !== undefined && needed > limit) {
        throw new TrainingMemoryError(memory, limit, inUse, extra);
      }
      options.onEstimate?.(preparation, needed);
    },
  };
}

/**
 * The action spaces an L2S model learns, one hashed weight table each: a labelled parser's
 * transitions and relations; otherwise one.
 */
export function l2sActionSpaces(task: "tagger" | "parser", labelled = true): number {
  return task === "parser" && labelled ? 2 : 1;
}
