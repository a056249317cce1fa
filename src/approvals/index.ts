// Approvals, one home: the gates (chat and unattended), the records in Redis, answering a button or the
// console, the buttons' encoded actions and texts. The contract the loop and the channels see is core/approval.ts.
export { createApprovalGate, promptOf, type ApprovalGateOptions } from './approval-gate.js';
export { createApprovalAnswerHandler, denyAsOperator, stopRequestsOfTurn, stopWaitingTurn, type ApprovalAnswerDependencies, type OperatorDenial } from './answer-approval.js';
export { argumentsPreview, decisionText, OPERATOR_PREFIX } from './approval-text.js';
export { createUnattendedGate, isPrivileged, unattendedRefusal, type UnattendedGateOptions } from './unattended-gate.js';
export { ApprovalRecords, approvalIdOf, type ApprovalRecord, type ApprovalStatus } from './approval-records.js';
export { APPROVAL_BUTTONS, approvalPromptText, decodeApprovalAction, encodeApprovalAction } from './approval-actions.js';
