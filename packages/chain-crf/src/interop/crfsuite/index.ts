export { hashlittle } from "./lookup3.js";
export {
  CrfsuiteExportError,
  type CrfsuiteExportOptions,
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
} from "./model.js";
