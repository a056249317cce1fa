/** Helpers the platform channels share; no platform SDK is imported here. */
export { headerOf } from './http-headers.js';
export { sameSecret } from './secret-compare.js';
