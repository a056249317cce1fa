import type { InboundMessage } from '../core/inbound-message.js';
import type { MemoryService } from './memory-service.js';
import { parseMemoryId } from './memory-tools.js';

const LIST_MAX_CHARS = 3_500;

/** `/memory`: the chat's memories with their ids (oldest first). */
export async function memoryCommand(service: MemoryService, message: InboundMessage): Promise<string> {
  const all = await service.list(service.scopeOf(message.conversation, message.sender.id));
  if (all.length === 0) return 'No memories saved in this chat yet.';
  const lines: string[] = [];
  let size = 0;
  for (const memory of all) {
    const line = `${memory.id}: ${memory.text}`;
    if (size + line.length > LIST_MAX_CHARS) {
      lines.push(`… and ${all.length - lines.length} more`);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return [`Memories (${all.length}); /forget <id> removes one:`, ...lines].join('\n');
}

/** `/forget <id>`: deletes one of the chat's memories. */
export async function forgetCommand(service: MemoryService, message: InboundMessage, args: string): Promise<string> {
  const id = parseMemoryId(args);
  if (id === undefined) return 'Usage: /forget <id> (the ids are listed by /memory)';
  const deleted = await service.forget(service.scopeOf(message.conversation, message.sender.id), id);
  return deleted ? `Forgot memory ${id}: ${deleted.text}` : `No memory ${id} in this chat.`;
}
