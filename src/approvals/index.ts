export { createApprovalGate, promptOf, type ApprovalGateOptions } from './approval-gate.js';
export { createApprovalAnswerHandler, stopWaitingTurn, type ApprovalAnswerDependencies } from './answer-approval.js';
export { argumentsPreview, decisionText } from './approval-text.js';
export { createUnattendedGate, isPrivileged, unattendedRefusal, type UnattendedGateOptions } from './unattended-gate.js';
