import type { InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink, type BoundaryOutcome } from '../shared/index.js';
import { normalizeUpdate, type BotIdentity } from './inbound.js';
import { checkUpdate } from './update-schema.js';

/** undefined: an update the bot does not answer (nothing for the sink). */
export type UpdateHandler = (update: unknown) => Promise<BoundaryOutcome | undefined>;

/** The one inbound path of webhook and long polling: check the payload, normalize, sanitize, hand to the sink. */
export function createUpdateHandler(identity: BotIdentity, sink: InboundSink, logger: Logger): UpdateHandler {
  const sanitized = sanitizingSink(sink);
  return async (value) => {
    const checked = checkUpdate(value);
    if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
    if (checked.dropped.length > 0) logger.info({ updateId: checked.update.update_id, dropped: checked.dropped }, 'telegram update: fields of the wrong type dropped');
    const message = normalizeUpdate(checked.update, identity);
    return message === undefined ? undefined : sanitized(message);
  };
}
