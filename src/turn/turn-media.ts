import { workspaceFor } from '../agent/index.js';
import type { Channel } from '../core/channel.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { modelTakesImages, type MessageMedia } from '../media/index.js';
import { workspaceOwnerOf } from './run-model.js';
import type { TurnDependencies } from './turn-dependencies.js';

/** The turn's attachments, fetched and read now (in the worker), into the workspace the turn's tools see. */
export async function prepareTurnMedia(deps: TurnDependencies, messages: InboundMessage[], channel: Channel, signal: AbortSignal): Promise<Map<string, MessageMedia>> {
  if (!deps.media || !messages.some((message) => message.attachments?.length)) return new Map();
  const workspace = await workspaceFor(deps.settings.dataDir, workspaceOwnerOf(messages.at(-1)!));
  const accountId = messages.at(-1)!.conversation.accountId;
  return deps.media.prepareTurn(messages, { channel, accountId, workspace, modelTakesImages: modelTakesImages(deps.model.model), signal });
}
