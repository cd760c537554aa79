/**
 * Answer-template grading core: platform-free (zod only; no bindings, SDKs or wasm).
 * The pipeline uses these; everything else in this folder is an implementation detail.
 */
export { buildJudgeSchema, judgeVisibleFields, type JudgeSchema, type ParsedAnswer } from "./judge-schema";
export { verifyFields, groundTruthOf, type FieldVerification } from "./verify";
export { runRegexChecks, findAll, type RegexChecksResult, type RegexCheckDetail, type RegexMatch } from "./regex-checks";
export { validateRegexPattern } from "./python-regex";
export { PRIMITIVES, PRIMITIVE_NAMES, type PrimitiveName, type VerifyWith } from "./primitives/registry";
export { NORMALIZER_NAMES, applyNormalizers, type Normalizer } from "./normalizers";
