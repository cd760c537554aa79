/**
 * The named schemas of /openapi.json (`#/components/schemas/<name>`): every request and response
 * schema an operation uses, plus shared shapes worth a name of their own (they become $refs
 * wherever they occur). An operation using a schema missing here fails the document build, naming it.
 */
import type { z } from "zod";
import { CreateExportRequest, CreateRunFromPreset, CreateRunRequest, RunSubmission } from "../schemas/api";
import {
  DeletedSchedule,
  ExportFile,
  ExportList,
  ExportView,
  KareninaResultsExport,
  GroupedSummaryPage,
  GroupSummaryView,
  RunComparison,
  ScheduleDetail,
  ScheduleList,
  ScheduleView,
  SummaryResponse,
} from "../schemas/results-out-views";
import { CreateScheduleRequest, UpdateScheduleRequest } from "../schemas/schedules";
import { RescoreAfresh, RescoreLeftOut, RescoreRequest, RescoreStarted } from "../schemas/rescore";
import { ErrorResponse } from "../schemas/api-error";
import { Benchmark, Question, Scenario, ScenarioNode } from "../schemas/benchmark";
import { OutcomeCheck, ScenarioEdge, StateCheck } from "../scenarios/scenario-schema";
import {
  BenchmarkList,
  BenchmarkListing,
  CheckpointDocument,
  DeletedBenchmark,
  ImportedCheckpoint,
  StoredBenchmark,
} from "../schemas/benchmark-views";
import { CalibrateRequest, JudgeConfig, JudgeRequest, UnitConfig } from "../schemas/judge";
import { ModelConfig } from "../schemas/model-config";
import {
  AgenticRubricTrait,
  CallableRubricTrait,
  CompoundRubricTrait,
  DynamicRubric,
  LLMRubricTrait,
  MetricRubricTrait,
  RegexRubricTrait,
  Rubric,
} from "../schemas/rubric";
import { CalibrationReport, JudgeOutcome } from "../schemas/judge-outcome";
import { ResultMetadata, ResultTemplate, VerificationResult } from "../schemas/result";
import {
  DeletedRun,
  DryRunEstimate,
  ListedResult,
  PairSummary,
  ResultPage,
  RunEventStream,
  RunList,
  RunStatus,
  RunUsage,
  SubmittedRun,
  SummaryPage,
} from "../schemas/run-views";
import { RunEvent } from "../schemas/run-events";
import {
  AuditPage,
  CreatedTenant,
  DeletedSecret,
  KeyList,
  KeyView,
  MintedKey,
  MonthUsage,
  SecretList,
  SecretView,
  TenantResponse,
  TenantList,
  ListedTenant,
  ListedTenantResponse,
  EffectiveLimits,
} from "../schemas/tenant-views";
import {
  CreateKeyRequest,
  CreateTenantRequest,
  IssueTenantKeyRequest,
  PutSecretRequest,
  RotateKeyRequest,
  UpdateTenantRequest,
} from "../schemas/tenants";
import { VerificationConfig } from "../schemas/verification-config";
import { DeletedEndpoint, DeliveryPage, EndpointList, EndpointView, EndpointWithSecret, RetriedDelivery } from "../schemas/webhook-views";
import { CreateEndpointRequest, RotateSecretRequest, UpdateEndpointRequest } from "../schemas/webhooks";
import { DeletedTrigger, HookPayload, HookPing, TriggerList, TriggerView, TriggerWithSecret } from "../schemas/trigger-views";
import { CreateTriggerRequest } from "../schemas/triggers";
import { DeletedPreset, PresetList, PresetView } from "../schemas/preset-views";
import { PresetRequest } from "../schemas/presets";
import {
  DeletedStoredJudge,
  JudgeTokenList,
  JudgeTokenView,
  MintedJudgeToken,
  PromptfooVerdict,
  StoredJudgeList,
  StoredJudgeView,
} from "../schemas/stored-judge-views";
import { CreateJudgeTokenRequest, PromptfooMapping, PromptfooRequest, StoredJudgeRequest } from "../schemas/stored-judges";
import { AnswerTemplate, TemplateField, VerifyStrategy } from "../templates/template-schema";
import { Checkpoint } from "../karenina/import";

export const COMPONENTS: Record<string, z.ZodType> = {
  ErrorResponse,
  RunEventStream,
  RunEvent,
  // requests
  RunSubmission,
  CreateRunRequest,
  CreateRunFromPreset,
  Benchmark,
  Question,
  Scenario,
  ScenarioNode,
  ScenarioEdge,
  StateCheck,
  ScenarioOutcomeCheck: OutcomeCheck,
  AnswerTemplate,
  TemplateField,
  VerifyStrategy,
  VerificationConfig,
  ModelConfig,
  Rubric,
  DynamicRubric,
  LLMRubricTrait,
  RegexRubricTrait,
  CallableRubricTrait,
  MetricRubricTrait,
  AgenticRubricTrait,
  CompoundRubricTrait,
  JudgeConfig,
  UnitConfig,
  KareninaCheckpoint: Checkpoint,
  JudgeRequest,
  CalibrateRequest,
  CreateKeyRequest,
  RotateKeyRequest,
  PutSecretRequest,
  CreateTenantRequest,
  IssueTenantKeyRequest,
  UpdateTenantRequest,
  CreateEndpointRequest,
  UpdateEndpointRequest,
  RotateSecretRequest,
  CreateExportRequest,
  CreateScheduleRequest,
  UpdateScheduleRequest,
  RescoreRequest,
  // responses
  SubmittedRun,
  RescoreStarted,
  RescoreLeftOut,
  RescoreAfresh,
  DryRunEstimate,
  RunList,
  RunStatus,
  RunUsage,
  PairSummary,
  SummaryPage,
  SummaryResponse,
  GroupedSummaryPage,
  GroupSummaryView,
  ResultPage,
  ExportView,
  ExportList,
  ExportFile,
  KareninaResultsExport,
  RunComparison,
  ScheduleView,
  ScheduleDetail,
  ScheduleList,
  DeletedSchedule,
  ListedResult,
  VerificationResult,
  ResultMetadata,
  ResultTemplate,
  DeletedRun,
  BenchmarkListing,
  BenchmarkList,
  StoredBenchmark,
  ImportedCheckpoint,
  CheckpointDocument,
  DeletedBenchmark,
  JudgeOutcome,
  CalibrationReport,
  KeyView,
  MintedKey,
  KeyList,
  SecretView,
  SecretList,
  DeletedSecret,
  MonthUsage,
  AuditPage,
  TenantResponse,
  TenantList,
  ListedTenant,
  ListedTenantResponse,
  EffectiveLimits,
  CreatedTenant,
  EndpointView,
  EndpointWithSecret,
  EndpointList,
  DeletedEndpoint,
  DeliveryPage,
  RetriedDelivery,
  CreateTriggerRequest,
  TriggerView,
  TriggerWithSecret,
  TriggerList,
  DeletedTrigger,
  HookPing,
  HookPayload,
  PresetRequest,
  PresetView,
  PresetList,
  DeletedPreset,
  StoredJudgeRequest,
  PromptfooMapping,
  StoredJudgeView,
  StoredJudgeList,
  DeletedStoredJudge,
  CreateJudgeTokenRequest,
  JudgeTokenView,
  MintedJudgeToken,
  JudgeTokenList,
  PromptfooRequest,
  PromptfooVerdict,
};
