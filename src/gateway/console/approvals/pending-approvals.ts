import type { ConversationRef } from '../../../core/inbound-message.js';
import type { ApprovalRecord } from '../../../approvals/approval-records.js';
import { chatKey, chatNames, peopleNames, personKey, type StoreDatabase } from '../../../store/index.js';
import { chatLabel, personName } from '../names.js';

/** A pending request with what its requester and its chat are called. */
export interface NamedApproval {
  record: ApprovalRecord;
  conversation: ConversationRef | undefined;
  requesterName: string | undefined;
  chatLabel: string | undefined;
}

function conversationOf(record: ApprovalRecord): ConversationRef | undefined {
  try {
    const value = JSON.parse(record.conversation) as ConversationRef;
    return typeof value === 'object' && value !== null && typeof value.chatId === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Names for a page of requests: one lookup in `people`, one in `sessions`. */
export async function namedApprovals(db: StoreDatabase, records: ApprovalRecord[]): Promise<NamedApproval[]> {
  const conversations = records.map(conversationOf);
  const known = conversations.filter((conversation) => conversation !== undefined);
  const [people, chats] = await Promise.all([
    peopleNames(
      db,
      records.flatMap((record, index) => {
        const conversation = conversations[index];
        return conversation ? [{ channel: conversation.channel, userId: record.requesterId }] : [];
      }),
    ),
    chatNames(db, known),
  ]);
  return records.map((record, index) => {
    const conversation = conversations[index];
    const person = conversation ? people.get(personKey({ channel: conversation.channel, userId: record.requesterId })) : undefined;
    const chat = conversation ? chats.get(chatKey(conversation)) : undefined;
    return { record, conversation, requesterName: person ? personName(person) : undefined, chatLabel: chat ? chatLabel(chat) : undefined };
  });
}
