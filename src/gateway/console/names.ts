import type { ChatType } from '../../core/inbound-message.js';
import { EMPTY_HTML, html, type Html } from './html.js';

/** A person as the platform named them; any field may be missing. */
export interface NamedPerson {
  userId: string | null;
  name: string | null | undefined;
  username: string | null | undefined;
}

/** `Ada Lovelace (@ada)`, `@ada`, `Ada Lovelace`; undefined when the platform never sent a name. */
export function personName(person: Pick<NamedPerson, 'name' | 'username'>): string | undefined {
  if (person.name && person.username) return `${person.name} (@${person.username})`;
  if (person.name) return person.name;
  return person.username ? `@${person.username}` : undefined;
}

/** The name, then the platform id in code (the id is what logs, budgets and ALLOW_FROM use). */
export function personCell(person: NamedPerson): Html {
  if (person.userId === null) return html`–`;
  const name = personName(person);
  return name ? html`${name}<br><code>${person.userId}</code>` : html`<code>${person.userId}</code>`;
}

export interface NamedChat {
  chatType: ChatType;
  chatId: string;
  /** The group's title. */
  title: string | null;
  /** A DM's user. */
  userName: string | null;
  username: string | null;
}

/** What a chat is called: a group's title, a DM user's name, else the kind of chat and its id. */
export function chatLabel(chat: NamedChat): string {
  if (chat.title) return chat.title;
  if (chat.chatType === 'dm') return personName({ name: chat.userName, username: chat.username }) ?? `Direct messages ${chat.chatId}`;
  return `Group ${chat.chatId}`;
}

/** "Direct messages" or "Group" with the id, under a name (nothing when the label already is the id). */
export function chatKind(chat: NamedChat): Html {
  const label = chatLabel(chat);
  const kind = chat.chatType === 'dm' ? 'Direct messages' : 'Group';
  return label === `${kind} ${chat.chatId}` ? EMPTY_HTML : html`${kind} <code>${chat.chatId}</code>`;
}
