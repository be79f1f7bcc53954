import { chainSlave } from "./chain-slave.js";
import { checkDecoderOptionSpecs } from "./decoder-options.js";
import type {
  ChainSlaveFactory,
  DecodeOptions,
  DecodeProblem,
  Decoder,
  DecoderContext,
  DecoderDefinition,
  SlaveDefinition,
} from "./decoder-types.js";
import { exactDecoding } from "./decoding.js";
import type { SlaveBinding } from "./dual-decomposition/bindings.js";
import {
  DualDecomposition,
  type DualDecompositionOptions,
  type DualDecompositionSolution,
} from "./dual-decomposition/master.js";
import { LagrangeError, ProblemValidationError } from "./errors.js";
import { guardDecoderDefinition, guardSlaveDefinition, installingOrigin } from "./plugin-guard.js";

/**
 * What a dual-decomposition decoder reads besides {@link DecodeOptions}: the master's step
 * (`subgradient` or `ad3`), AD3's initial η and exact mode, as the options they declare
 * (`STEP_OPTION`, `ETA_OPTION`, `EXACT_OPTION`) set them.
 */
export type DualDecompositionDecodeOptions = DecodeOptions &
  Pick<DualDecompositionOptions, "step" | "eta" | "exact" | "timeLimitMs">;

/** A decoder on core's dual-decomposition master: it takes the master's step among its options. */
export interface DualDecompositionDecoder extends Decoder {
  decode(
    problem: DecodeProblem,
    options?: DualDecompositionDecodeOptions,
  ): DualDecompositionSolution;
}

/** An unknown or duplicate name in a registry: a usage error that lists what is known. */
export class RegistryError extends LagrangeError {
  override readonly name = "RegistryError";
  constructor(message: string) {
    super("usage", message);
  }
}

/**
 * Named decoders and slaves: the one door through which apps reach every strategy. Packages
 * export definitions; an app's registry adds them (and a user's plug-ins add more); the CLI, the
 * bench and the demo build decoders from it by name.
 */
export class DecoderRegistry {
  readonly context: DecoderContext;
  readonly #decoders = new Map<string, DecoderDefinition>();
  readonly #slaves = new Map<string, SlaveDefinition>();

  constructor(context: Partial<DecoderContext> = {}) {
    this.context = { chainSlaves: context.chainSlaves ?? (() => chainSlave) };
  }

  /**
   * Adds a decoder. One a plug-in adds (while `installPlugin` runs it) is checked at every call:
   * what it throws or returns out of shape is an error naming the plug-in.
   */
  addDecoder(definition: DecoderDefinition): this {
    const origin = installingOrigin(this);
    checkName("decoder", definition?.name, this.#decoders);
    // A plug-in's specs are checked by its guard, as a plug-in error naming it.
    if (origin === undefined) {
      checkDecoderOptionSpecs(definition, (message) => new RegistryError(message));
    }
    const stored = origin === undefined ? definition : guardDecoderDefinition(definition, origin);
    this.#decoders.set(definition.name, stored);
    return this;
  }

  /** Adds a slave; one a plug-in adds is checked at every call, as its decoders are. */
  addSlave(definition: SlaveDefinition): this {
    const origin = installingOrigin(this);
    checkName("slave", definition?.name, this.#slaves);
    const stored = origin === undefined ? definition : guardSlaveDefinition(definition, origin);
    this.#slaves.set(definition.name, stored);
    return this;
  }

  decoders(): DecoderDefinition[] {
    return [...this.#decoders.values()];
  }

  slaves(): SlaveDefinition[] {
    return [...this.#slaves.values()];
  }

  decoder(name: string): DecoderDefinition {
    return lookup("decoder", name, this.#decoders);
  }

  slave(name: string): SlaveDefinition {
    return lookup("slave", name, this.#slaves);
  }

  /**
   * Runs the named decoder's one-time asynchronous set-up (if it has one): await it before
   * `create`. Unknown names are the same usage error as in `create`.
   */
  async prepare(name: string): Promise<void> {
    await this.decoder(name).prepare?.();
  }

  /** A fresh decoder by name, built with this registry's context; checks what it accepts. */
  create(name: string): Decoder {
    const definition = this.decoder(name);
    return acceptingOnly(definition, definition.create(this.context), () => this.decoders());
  }
}

function checkName(kind: string, name: unknown, known: ReadonlyMap<string, unknown>): void {
  if (typeof name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new RegistryError(
      `${kind} name ${JSON.stringify(name)}: expected lower-case letters, digits and hyphens`,
    );
  }
  if (known.has(name)) throw new RegistryError(`a ${kind} named "${name}" is already registered`);
}

function lookup<T>(kind: string, name: string, known: ReadonlyMap<string, T>): T {
  const found = known.get(name);
  if (found !== undefined) return found;
  const names = [...known.keys()];
  throw new RegistryError(
    `unknown ${kind} "${name}"; ${names.length === 0 ? `no ${kind}s are registered` : `expected one of ${names.join(", ")}`}`,
  );
}

/**
 * Wraps a decoder so that a problem with what its definition does not accept is a clear error,
 * naming the registered decoders that do accept it.
 */
function acceptingOnly(
  definition: DecoderDefinition,
  decoder: Decoder,
  registered: () => readonly DecoderDefinition[],
): Decoder {
  const { constraints, slaves } = definition.accepts;
  const patterns = definition.accepts.patterns ?? false;
  if (constraints && slaves && patterns) return decoder;
  const takers = (what: keyof DecoderDefinition["accepts"]): string => {
    const fit = registered().filter((d) => d.accepts[what] === true);
    return fit.length === 0
      ? "no registered decoder does"
      : `choose one that does: ${fit.map((d) => d.name).join(", ")}`;
  };
  return {
    name: decoder.name,
    decode(problem, options) {
      if (!constraints && (problem.constraints?.length ?? 0) > 0) {
        throw new ProblemValidationError(
          "problem.constraints",
          `decoder "${definition.name}" does not take constraints; ${takers("constraints")}`,
        );
      }
      if (!slaves && (problem.slaves?.length ?? 0) > 0) {
        throw new ProblemValidationError(
          "problem.slaves",
          `decoder "${definition.name}" does not take extra slaves; ${takers("slaves")}`,
        );
      }
      if (!patterns && (problem.patterns?.length ?? 0) > 0) {
        throw new ProblemValidationError(
          "problem.patterns",
          `decoder "${definition.name}" does not take higher-order patterns; ${takers("patterns")}`,
        );
      }
      return decoder.decode(problem, options);
    },
    ...(decoder.marginals === undefined ? {} : { marginals: decoder.marginals.bind(decoder) }),
  };
}

/** Exact MAP of the chain alone: the chain slave called once with no adjustment. */
export function chainDecoder(chain: ChainSlaveFactory = chainSlave, name = "viterbi"): Decoder {
  let zeros = new Float64Array(0);
  return {
    name,
    decode(problem) {
      const { n, L } = problem.scores;
      const slave = chain(problem.scores);
      if (zeros.length < n * L) zeros = new Float64Array(Math.max(n * L, 2 * zeros.length));
      const result = slave.maximize(zeros.subarray(0, n * L));
      return exactDecoding(result.labels.slice(), result.value);
    },
  };
}

/** `viterbi`: the chain alone, exactly; the model's transition mask keeps its output scheme-valid. */
export const viterbiDefinition: DecoderDefinition = {
  name: "viterbi",
  description: "exact MAP of the chain (Viterbi); the scheme's transition mask keeps it valid",
  accepts: { constraints: false, slaves: false },
  capabilities: { nbest: "list-viterbi", certificate: "optimum", exactChain: true },
  create: (context) => chainDecoder(context.chainSlaves(), "viterbi"),
};

/**
 * Dual decomposition over the chain slave of the problem's scores, its extra slaves and its
 * constraints, on one {@link DualDecomposition} master kept for every sentence (so constraint
 * matrices compiled for one sentence length serve the next). `defaults` are the policy: soft-dd,
 * hard-dd, two-slave and naive DD differ by them and by the slaves they are given.
 */
export function dualDecompositionDecoder(
  name: string,
  defaults: DualDecompositionOptions,
  chain: ChainSlaveFactory = chainSlave,
): DualDecompositionDecoder {
  const master = new DualDecomposition(defaults, name);
  const bindings: SlaveBinding[] = [];
  return {
    name,
    decode(problem, options) {
      const { scores } = problem;
      bindings.length = 0;
      bindings.push({ slave: chain(scores) });
      if (problem.slaves !== undefined) bindings.push(...problem.slaves);
      const constraints = problem.constraints;
      return master.solve(
        {
          n: scores.n,
          L: scores.L,
          slaves: bindings,
          ...(constraints === undefined ? {} : { constraints }),
        },
        options,
      );
    },
  };
}
