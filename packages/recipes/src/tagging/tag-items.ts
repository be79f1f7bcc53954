/**
 * What every kind of tagger makes of one sentence: its decoder's figures as plain data, a
 * failure where the sentence is bad input, and the usage error for a request it cannot honour.
 */
import {
  type Decoding,
  LagrangeError,
  type LinearConstraint,
  lagrangeErrorCode,
} from "@lagrange/core";
import { type Sentence, tokenPlace } from "@lagrange/datasets";
import { InfeasibleSentenceError } from "../tagger.js";
import type { ConfidenceRequest } from "./confidence.js";
import type {
  DecodingStats,
  TagFailure,
  TaggerCapabilities,
  TagRequest,
} from "./sequence-tagger.js";

/**
 * A decoding's figures; `fired` (with `explain`) names the constraints whose multiplier ended > 0.
 * Without constraint statistics the decoding is unconstrained: nothing changed or violated.
 */
export function decodingStats(
  d: Decoding,
  constraints: readonly LinearConstraint[],
  explain: boolean,
): DecodingStats {
  const cs = d.constraintStats;
  let changed = false;
  if (cs !== undefined) {
    for (let t = 0; t < d.labels.length; t++) {
      if (d.labels[t] !== cs.firstLabels[t]) {
        changed = true;
        break;
      }
    }
  }
  let fired: string[] | undefined;
  if (explain) {
    fired = [];
    const multipliers = cs?.multipliers ?? [];
    for (let c = 0; c < multipliers.length; c++) {
      if (multipliers[c]! > 0) fired.push(constraints[c]?.name ?? `constraint ${c}`);
    }
  }
  return {
    iterations: d.iterations,
    status: d.status,
    certified: d.certified,
    primal: d.primal,
    dual: d.dual,
    gap: d.gap,
    firstViolated: cs?.firstViolated ?? 0,
    violated: cs?.violated ?? 0,
    hardViolated: cs?.hardViolated ?? 0,
    changed,
    ...(fired === undefined ? {} : { fired }),
  };
}

/**
 * Bad input of one sentence (no feasible labelling, columns the preset cannot read) as a failure
 * at its place: the token the message names (file:line) where it does, else `place`. Anything
 * else is a fault of the program, and is thrown again.
 */
export function failureOf(error: unknown, place: string, file?: string, note = ""): TagFailure {
  if (!(error instanceof InfeasibleSentenceError) && lagrangeErrorCode(error) !== "bad-input") {
    throw error;
  }
  const message = (error as Error).message;
  const at =
    file === undefined
      ? null
      : new RegExp(
          `^(${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+(?: \\(token \\d+\\))?): `,
        ).exec(message);
  const suffix = error instanceof InfeasibleSentenceError ? note : "";
  return {
    place: at?.[1] ?? place,
    reason: `${at === null ? message : message.slice(at[0].length)}${suffix}`,
  };
}

/** {@link failureOf} a sentence: its first token's place. */
export function sentenceFailure(error: unknown, sentence: Sentence, note = ""): TagFailure {
  return failureOf(error, tokenPlace(sentence, 0), sentence.source?.file, note);
}

/** Why a kind of model cannot do what a request asks: the tail of each usage error. */
export interface Refusals {
  readonly marginals: string;
  readonly nbest: string;
  readonly explain: string;
}

/** The confidence a request asks for, or undefined where it asks none. */
export function wantsConfidence(request: TagRequest): ConfidenceRequest | undefined {
  const c = request.confidence;
  return c?.marginals === true || c?.probability === true || c?.spans === true ? c : undefined;
}

/** What a request asks beyond labels, each as the flags that ask it. */
function asked(request: TagRequest) {
  const marginals = request.confidence?.marginals === true;
  const probability = request.confidence?.probability === true;
  const spans = request.confidence?.spans === true;
  const nbest = request.nbest !== undefined;
  const forced = request.restrictions !== undefined;
  const join = (flags: readonly (string | false)[]) =>
    flags.filter((f): f is string => f !== false).join(" and ");
  return {
    confidence: join([
      marginals && "--marginals",
      probability && "--probability",
      spans && "entity scores",
    ]),
    nbest: join([nbest && "--nbest", forced && "--forced"]),
    nbestAsked: nbest,
    forcedAsked: forced,
    explain: request.explain === true,
  };
}

/**
 * The usage error for the first thing `request` asks that `can` refuses; `refusals` say why, by
 * what is asked (`{flags}` stands for the flags that ask it).
 */
export function checkRequest(
  can: TaggerCapabilities,
  request: TagRequest,
  refusals: (flags: string) => Partial<Refusals>,
): void {
  const a = asked(request);
  const refuse = (flags: string, why: string | undefined) => {
    throw new LagrangeError("usage", why ?? `${flags}: not for this model`);
  };
  if (a.confidence !== "" && !can.marginals) refuse(a.confidence, refusals(a.confidence).marginals);
  if ((a.nbestAsked && !can.nbest) || (a.forcedAsked && !can.forced)) {
    refuse(a.nbest, refusals(a.nbest).nbest);
  }
  if (a.explain && !can.explain) refuse("--explain", refusals("--explain").explain);
}
