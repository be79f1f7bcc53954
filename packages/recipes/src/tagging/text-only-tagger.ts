/**
 * What the taggers that read text alone share (a general CRF, an L2S tagger): no marginals,
 * n-best lists, forced labels, explanations or CRFsuite attribute lists, and their refusals.
 */
import { LagrangeError } from "@lagrange/core";
import type { SentenceExplanation } from "../explain.js";
import type { TaggingTime } from "../tagger.js";
import type { TaggedBatch, TaggerCapabilities, TagRequest } from "./sequence-tagger.js";
import { checkRequest } from "./tag-items.js";

export abstract class TextOnlyTagger {
  readonly can: TaggerCapabilities = {
    marginals: false,
    nbest: false,
    forced: false,
    explain: false,
    text: true,
    attributes: false,
  };
  readonly constrained = false;
  readonly nbestMethod = undefined;
  /** "a general CRF", "an L2S tagger": what the refusals call it. */
  abstract readonly description: string;
  abstract readonly modelName: string;
  /** The subclass's clock, which `time` copies. */
  protected readonly clock = {
    sentences: 0,
    tokens: 0,
    featuresMs: 0,
    scoringMs: 0,
    decodingMs: 0,
  };
  readonly #noMarginals: string;
  readonly #noExplanation: string | undefined;

  /**
   * @param noMarginals why the kind has no marginals (in the refusal's parentheses)
   * @param noExplanation why it has no explanation, if it says more than its kind
   */
  constructor(noMarginals: string, noExplanation?: string) {
    this.#noMarginals = noMarginals;
    this.#noExplanation = noExplanation;
  }

  get time(): TaggingTime {
    return { ...this.clock };
  }

  check(request: TagRequest): void {
    const is = `${this.modelName} is ${this.description}`;
    checkRequest(this.can, request, (flags) => ({
      marginals: `${flags}: the marginals and probabilities of a linear-chain CRF; ${is} (${this.#noMarginals})`,
      nbest: `${flags}: for a linear-chain CRF; ${is}`,
      explain: `--explain: the constraints that fired under a linear-chain CRF's decoder; ${is}${this.#noExplanation === undefined ? "" : ` (${this.#noExplanation})`}`,
    }));
  }

  async tagAttributes(): Promise<TaggedBatch> {
    throw new LagrangeError(
      "usage",
      `${this.modelName} is ${this.description}: it reads text columns through its preset, not CRFsuite attribute lists`,
    );
  }

  async explain(): Promise<SentenceExplanation> {
    throw new LagrangeError(
      "usage",
      `lagrange explain reads a linear-chain CRF; ${this.modelName} is not one`,
    );
  }
}
