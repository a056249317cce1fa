import type { BudgetScope, BudgetSpend } from '../../../budgets/index.js';
import type { ChannelName } from '../../../core/inbound-message.js';
import { chatNames, namesMatching, peopleNames, type StoreDatabase } from '../../../store/index.js';
import { ADMIN_PREFIX } from '../../admin-scope.js';
import { pathWithQuery } from '../format.js';
import { personName } from '../names.js';
import { sessionPath } from '../sessions/sessions-page.js';

/** One row of today's spend, with what its user or chat is called and where its sessions are. */
export interface NamedSpend extends BudgetSpend {
  /** A person's or chat's name; absent when none is stored (an agent is its id). */
  name?: string;
  /** The console page of its sessions (one session: that session's transcript). */
  sessionsPath: string;
}

export interface SpendPage {
  rows: NamedSpend[];
  /** Rows matching the search and scope, on every page. */
  total: number;
  page: number;
  pageCount: number;
}

export interface SpendQuery {
  search: string;
  scope: BudgetScope | undefined;
  page: number;
  limit: number;
}

interface UserId {
  channel: ChannelName;
  userId: string;
}

interface ChatId {
  channel: ChannelName;
  accountId: string;
  chatId: string;
}

/** `<channel>:<userId>` (budget-ledger.ts). */
function userIdOf(id: string): UserId | undefined {
  const colon = id.indexOf(':');
  return colon > 0 ? { channel: id.slice(0, colon) as ChannelName, userId: id.slice(colon + 1) } : undefined;
}

/** `<channel>:<accountId>:<chatId>` (budget-ledger.ts). */
function chatIdOf(id: string): ChatId | undefined {
  const first = id.indexOf(':');
  const second = first > 0 ? id.indexOf(':', first + 1) : -1;
  return second > first + 1 ? { channel: id.slice(0, first) as ChannelName, accountId: id.slice(first + 1, second), chatId: id.slice(second + 1) } : undefined;
}

/**
 * Today's spend (already read whole from the ledger, most first) narrowed to a scope and a search, and cut to
 * one page; only that page's users and chats are named (two primary-key lookups). A search matches an id, or
 * a stored name, username or chat title (one query each in `people` and `sessions`).
 */
export async function spendPage(db: StoreDatabase, spend: readonly BudgetSpend[], query: SpendQuery): Promise<SpendPage> {
  let rows = query.scope ? spend.filter((row) => row.scope === query.scope) : [...spend];
  const search = query.search.trim();
  if (search !== '') {
    const needle = search.toLowerCase();
    const named = await namesMatching(db, search);
    rows = rows.filter(
      (row) => row.id.toLowerCase().includes(needle) || (row.scope === 'user' && named.people.has(row.id)) || (row.scope === 'chat' && named.chats.has(row.id)),
    );
  }
  const pageCount = Math.max(1, Math.ceil(rows.length / query.limit));
  const page = Math.min(query.page, pageCount);
  const shown = rows.slice((page - 1) * query.limit, page * query.limit);
  const users = shown.flatMap((row) => (row.scope === 'user' ? [userIdOf(row.id)].filter((user) => user !== undefined) : []));
  const chats = shown.flatMap((row) => (row.scope === 'chat' ? [chatIdOf(row.id)].filter((chat) => chat !== undefined) : []));
  const [people, chatsFound] = await Promise.all([peopleNames(db, users), chatNames(db, chats)]);
  return {
    rows: shown.map((row) => {
      if (row.scope === 'user') {
        const person = people.get(row.id);
        const name = person ? personName(person) : undefined;
        return { ...row, ...(name ? { name } : {}), sessionsPath: pathWithQuery(`${ADMIN_PREFIX}/sessions`, { user: row.id }) };
      }
      if (row.scope === 'chat') {
        const chat = chatsFound.get(row.id);
        const name = chat ? (chat.title ?? (chat.chatType === 'dm' ? personName({ name: chat.userName, username: chat.username }) : undefined)) : undefined;
        const sessionsPath = chat?.sessions === 1 ? sessionPath(chat.sessionKey) : pathWithQuery(`${ADMIN_PREFIX}/sessions`, { chat: row.id });
        return { ...row, ...(name ? { name } : {}), sessionsPath };
      }
      return { ...row, sessionsPath: pathWithQuery(`${ADMIN_PREFIX}/sessions`, { agent: row.id }) };
    }),
    total: rows.length,
    page,
    pageCount,
  };
}
