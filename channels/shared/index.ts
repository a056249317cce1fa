/** Helpers the platform channels share; no platform SDK is imported here. */
export type { BoundaryOutcome } from './boundary-outcome.js';
export { headerOf } from './http-headers.js';
export { createPayloadCheck, Droppable, type PayloadCheck } from './payload-check.js';
export { sanitizeInbound, sanitizingSink, wellFormedText } from './sanitize-inbound.js';
export { sameSecret, sameSignature } from './secret-compare.js';
export { downloadError, readCapped } from './read-capped.js';
export { deliverParts, SEND_DISPATCH_WINDOW_MS, SEND_LANDING_MARGIN_MS, type PartSender } from './deliver-parts.js';
export { markdownWalker, plainInline, type BlockSeparation, type InlineStyle, type ListItemShape, type MarkdownRenderer } from './markdown-walker.js';
export { cutAfterLast, CutFinder, hardCut, splitsSurrogatePair, type BreakKind } from './cut-finder.js';
export { openPlatformLiveReply, withStatusLine, type LiveReplyPlatform, type PreviewInPlace, type PreviewOutcome } from './live-reply.js';
export { commonJsExports } from './commonjs-exports.js';
