import {
  calibrationOfColumns,
  formatCalibrationReport,
  readConfidenceColumns,
  reliabilityDiagramSvg,
} from "@lagrange/datasets";
import { writeOutput } from "../output.js";
import { conllReport, type EvalOptions, percent } from "./eval-conll.js";

/**
 * `lagrange eval --confidence`: `lagrange tag --marginals` output (gold, prediction, the
 * prediction's probability as the last three columns) scored as conlleval scores it, then the
 * calibration of the token confidences; `reliability` writes the reliability diagram (SVG).
 */
export async function confidenceReport(
  text: string,
  file: string,
  options: EvalOptions & { readonly reliability?: string; readonly input?: string },
): Promise<string> {
  const columns = readConfidenceColumns(text, file);
  const calibration = calibrationOfColumns(columns);
  if (options.reliability !== undefined) {
    const title = `Reliability diagram: ${file}`;
    await writeOutput(options.reliability, { option: "--reliability" }, (output) =>
      output.write(reliabilityDiagramSvg(calibration, title)),
    );
  }
  const labels = conllReport(columns.labelText, file, { ...options, json: options.json === true });
  if (options.json !== true) return `${labels}${formatCalibrationReport(calibration)}`;
  const round = (x: number) => (Number.isNaN(x) ? null : Number(x.toFixed(6)));
  return `${JSON.stringify({
    ...(JSON.parse(labels) as object),
    calibration: {
      tokens: calibration.count,
      ece: round(calibration.ece),
      mce: round(calibration.mce),
      brier: round(calibration.brier),
      accuracy: percent(calibration.accuracy),
      confidence: percent(calibration.confidence),
      bins: calibration.bins.map((b) => ({
        lower: round(b.lower),
        upper: round(b.upper),
        count: b.count,
        confidence: round(b.confidence),
        accuracy: round(b.accuracy),
      })),
    },
  })}\n`;
}
