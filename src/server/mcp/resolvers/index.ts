export {
  type ElicitOutcome,
  elicit,
  elicitUrl,
  listRoots,
  type Question,
  type QuestionKind,
  sample,
  type UrlElicitOutcome,
} from "./questions.js";
export {
  type AnyResolver,
  InvalidSignature,
  isResolver,
  type ResolvedValue,
  type ResolvedValues,
  type Resolver,
  type ResolverInput,
  type ResolverOptions,
  resolver,
  withOutcome,
} from "./resolver.js";
export { questionDigest } from "./run.js";
