export { createApprovalGate, promptOf, type ApprovalGateOptions } from './approval-gate.js';
export { createApprovalAnswerHandler, denyAsOperator, stopWaitingTurn, type ApprovalAnswerDependencies, type OperatorDenial } from './answer-approval.js';
export { argumentsPreview, decisionText, OPERATOR_PREFIX } from './approval-text.js';
export { createUnattendedGate, isPrivileged, unattendedRefusal, type UnattendedGateOptions } from './unattended-gate.js';
