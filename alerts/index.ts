/**
 * tooltrail alerts: detectors, owners, the warning lifecycle and the evaluator that pages owners through
 * Alertmanager. The entry point for the CLI and the whole-stack command.
 */
export { AlertmanagerError, type AlertSink, alertmanagerClient } from './alertmanager/client.ts';
export { ALERT_NAMES, alertLabels, type PostableAlert, toPostableAlert } from './alertmanager/payload.ts';
export { addSeconds, type Clock, systemClock } from './clock.ts';
export {
  type AlertsConfig,
  AlertsConfigError,
  type AlertsOverrides,
  alertsConfigFromEnv,
  defaultAlertsConfig,
  EVALUATOR_ACTOR,
  parseAlertsConfig,
} from './config.ts';
export { DETECTOR_NAMES, type DetectorName, loadDetector, runDetector } from './detectors/load.ts';
export { formatDuration, parseDurationSeconds } from './duration.ts';
export { type EvaluationReport, Evaluator, type EvaluatorOptions } from './evaluator/evaluator.ts';
export type { Schedule } from './evaluator/schedule.ts';
export { type Detection, detect, reviewWarnings, type WarningReview } from './findings/detect.ts';
export { FINDING_KINDS, type Finding, type FindingKind, FindingListSchema, FindingSchema } from './findings/finding.ts';
export { type FindingRecord, listRecords } from './findings/store.ts';
export { OwnerDirectory, type ResolvedOwner } from './owners/resolve.ts';
export {
  listOwners,
  type OwnerAssignment,
  ownerHistory,
  removeOwner,
  SUBJECT_KINDS,
  type SubjectKind,
  setOwner,
} from './owners/store.ts';
export { acknowledgeWarning, retireWarning, type WarningListRow, warningsCommandRows } from './warnings/actions.ts';
export { decideWarning, WARNING_STATES, type WarningState } from './warnings/lifecycle.ts';
export { stateHistory } from './warnings/store.ts';
