/**
 * The accuracy bench's non-local rows, each over the last chain row alone: two-stage votes, the
 * general CRF, and the document constraints.
 */
import { modelToBytes } from "@lagrange/chain-crf";
import {
  definedFields,
  documentConstraintsLine,
  foldStopping,
  type GroupingKind,
  trainingFeatures,
  withDocumentConstraints,
} from "@lagrange/recipes";
import type { AccuracyRowName } from "./accuracy-datasets.js";
import {
  type DatasetContext,
  iterationStatus,
  pct,
  type RowRun,
  scoreRow,
  tagWith,
  trainerOf,
} from "./accuracy-rows.js";

/**
 * A non-local row's chain CRFs (two-stage stages, jackknife folds) train as the chain row's model
 * did: as long as its held-out curve said, where it stopped so (as `lagrange train` refits them).
 */
function foldTraining(last: NonNullable<RowRun["chain"]>) {
  return { ...last.training, ...foldStopping(last.model) };
}

/** Two-stage votes over the last chain row's features (the recipe's own folds and first stages). */
export async function twoStageRow(
  c: DatasetContext,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} two-stage`;
  const started = performance.now();
  c.status(`${label}: first stages jackknifed over ${last.text}, then the second stage`);
  const trained = await trainerOf(c, last.features, foldTraining(last)).trainTwoStage(c.cut, {
    onProgress: iterationStatus(c, label),
    onStage: (s) =>
      c.status(
        `${label}: ${s.stage === "first" ? `first stage, fold ${s.fold + 1}/${s.folds}` : s.stage === "first-full" ? "first stage on all the cut" : "second stage"}`,
      ),
  });
  const seconds = last.featureSeconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  return {
    row: {
      row: "two-stage",
      builtOn: lastRow,
      features: `${last.text} + first-stage votes (document and corpus majorities)`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: trained.iterations,
      stopReason: String(trained.stopReason),
      numFeatures: trained.numFeatures,
      modelBytes: scores.modelBytes,
      twoStage: {
        folds: trained.folds,
        firstStageSeconds: trained.firstStageSeconds,
        voted: trained.voted,
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/**
 * The general CRF over the last chain row's features (its model reused as the base chain where
 * it was trained under the data's scheme).
 */
export async function generalRow(
  c: DatasetContext,
  groups: GroupingKind,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} general`;
  const started = performance.now();
  c.status(
    `${label}: ${groups} groups over ${last.text}; jackknifed chain CRFs, then the perceptron`,
  );
  // The general CRF trains under the data's scheme: a chain row trained under another (BIOES
  // inside) is not its base, nor are that row's jackknife folds its folds.
  const sameScheme = last.model.scheme === c.scheme;
  const trained = await trainerOf(c, last.features, foldTraining(last)).trainGeneral(c.cut, {
    settings: { groups },
    ...(sameScheme ? { baseModel: last.model } : {}),
    // Each jackknife fold's chain CRF gets its own features (lexicons mined from its own
    // sentences): the base's jackknife indexes the whole cut, not a fold's subset.
    featuresOf: (corpus) => trainingFeatures(last.request, corpus, c.scheme, c.resources),
    onChainProgress: (p, fold) => iterationStatus(c, `${label} fold ${fold}`)(p),
    // Document groups are dealt into folds as the document constraints deal them: shared CRFs.
    ...(groups === "documents" && sameScheme ? { foldModels: c.foldModels } : {}),
    onProgress: (p) => {
      if (p.stage === "crf") c.status(`${label}: chain CRF fold ${p.fold}/${p.folds} done`);
      else if (p.stage === "perceptron") {
        if (p.done === p.groups) {
          c.status(`${label}: epoch ${p.epoch}/${p.epochs}, ${p.mistakes} mistaken positions`);
        }
      } else {
        c.status(`${label}: held-out cut after epoch ${p.epoch}: ${pct(p.score).toFixed(2)}`);
      }
    },
  });
  const seconds = last.seconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  const t = trained.training;
  const chosen = trained.selection;
  return {
    row: {
      row: "general",
      builtOn: lastRow,
      features: `${last.text}; ${groups} groups, ${trained.consistency.weights.length} consistency weights`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: t.mistakes.length,
      stopReason: `perceptron epochs, ${t.certified}/${t.decodings} decodings certified`,
      numFeatures: trained.model.summary().weights + trained.consistency.weights.length,
      modelBytes: scores.modelBytes,
      general: {
        groups,
        mistakes: t.mistakes,
        certified: t.decodings === 0 ? 1 : t.certified / t.decodings,
        linkedGroups: trained.groupStats.withFactors,
        ...(chosen === undefined
          ? {}
          : {
              selection: {
                epochs: chosen.epochs,
                scale: chosen.scale,
                chainScore: pct(chosen.chainScore),
                generalScore: pct(chosen.generalScore),
              },
            }),
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/**
 * Document constraints over the last chain row, learned as the NER task presets learn them
 * (the trainer's learnDocumentConstraints: jackknifed folds of the cut trained with the row's
 * features, penalties on all folds but one, kept where that fold gains) and recorded in the model
 * (withDocumentConstraints), which openTagger then decodes a document at a time with Soft-DD.
 */
export async function documentRow(
  c: DatasetContext,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} document`;
  const started = performance.now();
  c.status(`${label}: jackknifed chain CRFs over ${last.text}, then the document penalties`);
  const selected = await trainerOf(c, last.features, foldTraining(last)).learnDocumentConstraints(
    c.cut,
    last.model,
    {
      // Each fold's own features (lexicons mined from its own sentences), as the general row's.
      featuresOf: (corpus) => trainingFeatures(last.request, corpus, c.scheme, c.resources),
      onChainProgress: (p, fold) => iterationStatus(c, `${label} fold ${fold}`)(p),
      foldModels: c.foldModels,
      onProgress: (p) => {
        if (p.stage === "crf") c.status(`${label}: chain CRF fold ${p.fold}/${p.folds} done`);
        else if (p.stage === "penalties") {
          c.status(`${label}: epoch ${p.epoch.epoch}, ${p.epoch.mistakes} documents wrong`);
        }
      },
      ...definedFields({ bootstrapSamples: c.options.bootstrapSamples, seed: c.options.seed }),
    },
  );
  c.status(`${label}: ${documentConstraintsLine(selected)}`);
  const model = withDocumentConstraints(last.model, selected, { data: c.cut.label });
  const seconds = last.seconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(model), label);
  const viterbi = await tagWith(
    modelToBytes(last.model),
    `${label} (chain)`,
    c.dev ?? c.heldOut,
    c.options.signal,
  );
  const kept = selected.types.filter((t) => t.kept > 0).map((t) => t.type);
  return {
    row: {
      row: "document",
      builtOn: lastRow,
      features: `${last.text}; document constraints (same-string, acronym) per entity type over ${selected.groups === "documents" ? "documents" : "tweet groups"}`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: selected.history.length,
      stopReason: "perceptron epochs over jackknifed documents",
      numFeatures: last.model.summary().weights,
      modelBytes: scores.modelBytes,
      document: {
        groups: selected.groups,
        kept,
        constraints: selected.entries.length,
        checkGain:
          selected.gain === undefined
            ? null
            : {
                gain: selected.gain.gain,
                interval: [selected.gain.interval[0], selected.gain.interval[1]],
              },
        checkDocuments: selected.checkDocuments,
        ...definedFields({ reason: selected.reason }),
        dropped: selected.types
          .filter((t) => t.kept === 0)
          .map((t) => `${t.type}: ${t.reason ?? "dropped"}`),
        documents: scores.tagged.decodings,
        certified:
          scores.tagged.decodings === 0 ? 1 : scores.tagged.certified / scores.tagged.decodings,
        tagSeconds: scores.tagged.seconds,
        viterbiSeconds: viterbi.seconds,
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}
