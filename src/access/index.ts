export { createAccessControl, type AccessControl, type AccessControlOptions, type AccessDecision } from './access-control.js';
export { ACCESS_MESSAGES } from './messages.js';
export { generatePairingCode, normalizePairingCode, PAIRING_ALPHABET, PAIRING_CODE_LENGTH } from './pairing-code.js';
export { MAX_PENDING_PER_CHANNEL, PAIRING_TTL_MS, PairingService, type PairingOptions } from './pairing.js';
export { UserRateLimiter, type RateDecision, type UserRateLimiterOptions } from '../redis/user-rate-limiter.js';
