export { estimateTextTokens, estimateMessageTokens, estimateTokens, MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from './estimate-tokens.js';
export { TokenCalibration, promptTokensOf, initialFactorFor } from './token-calibration.js';
