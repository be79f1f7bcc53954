import { Command } from "commander";
import {
  ad3Command,
  bcrfCommand,
  softDdCitationsCommand,
  twoPhaseIlpCommand,
  twoSlaveNerCommand,
} from "./dual-decomposition-commands.js";
import { cliStartupCommand, maxflowCommand, scaleCommand } from "./runtime-commands.js";
import {
  accuracyCommand,
  brownClustersCommand,
  crfProfileCommand,
  crfsuiteInteropCommand,
  crfVsCrfsuiteCommand,
  l2sCommand,
} from "./sequence-commands.js";
import { textBundleCommand, textCommand } from "./text-commands.js";

const program = new Command("bench")
  .description("Benchmarks against peers, measured in the same run")
  .showHelpAfterError();

for (const register of [
  crfVsCrfsuiteCommand,
  crfProfileCommand,
  crfsuiteInteropCommand,
  softDdCitationsCommand,
  twoPhaseIlpCommand,
  brownClustersCommand,
  maxflowCommand,
  twoSlaveNerCommand,
  bcrfCommand,
  l2sCommand,
  cliStartupCommand,
  scaleCommand,
  accuracyCommand,
  ad3Command,
  textCommand,
  textBundleCommand,
])
  register(program);

await program.parseAsync(process.argv.slice(2), { from: "user" });
