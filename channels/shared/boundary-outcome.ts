import type { InboundOutcome } from '../../src/core/index.js';

/**
 * What a channel's inbound path answers its transport: the sink's outcome, or `invalid` for a payload
 * whose needed fields have the wrong type. A webhook answers `invalid` with 400 (a 5xx would make the
 * platform redeliver it forever); polling, Socket Mode and the long connection drop it with a warning.
 */
export type BoundaryOutcome = InboundOutcome | { kind: 'invalid'; reason: string };
