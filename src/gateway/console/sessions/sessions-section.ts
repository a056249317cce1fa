import type { FastifyInstance } from 'fastify';
import { findConsoleSession, listConsoleSessions, sessionPromptSplit, transcriptPage, type ConsoleSession } from '../../../store/index.js';
import type { ConsoleContext, ConsoleSection } from '../console-section.js';
import {
  ConsoleRequestError,
  SessionKeySchema,
  type SessionKeyParameters,
  SessionsQuerySchema,
  TranscriptQuerySchema,
  type SessionsQueryParameters,
  type TranscriptQueryParameters,
} from '../query-parameters.js';
import { messageJson, runJson, sessionJson } from './contract-shapes.js';
import { decodeSessionsCursor, encodeSessionsCursor } from './sessions-cursor.js';
import { sessionsFilterOf } from './sessions-filter.js';
import { sessionLabel, sessionsPage } from './sessions-page.js';
import { transcriptPage as transcriptView } from './transcript-page.js';

const SESSIONS_LIMIT = 50;
const TRANSCRIPT_LIMIT = 200;

/** Sessions (search, pages) and a session's transcript with its runs' spans; as pages and as JSON. */
export const sessionsSection: ConsoleSection = {
  id: 'sessions',
  title: 'Sessions',
  description: 'Every conversation, searchable by chat, user and text; each transcript with its runs, LLM and tool calls.',
  register(routes: FastifyInstance, context: ConsoleContext) {
    const { db } = context.deps;

    const sessions = async (query: SessionsQueryParameters) => {
      const limit = query.limit ?? SESSIONS_LIMIT;
      const filter = sessionsFilterOf(query);
      const page = await listConsoleSessions(db, { search: query.q, filter: filter?.filter, limit, after: decodeSessionsCursor(query.cursor) });
      return { ...page, limit, filter: filter?.view, nextCursor: page.next ? encodeSessionsCursor(page.next) : undefined };
    };
    const transcript = async (key: string, query: TranscriptQueryParameters) => {
      const session = await findConsoleSession(db, key);
      if (!session) throw new ConsoleRequestError(404, `no session with the key ${JSON.stringify(key)}`);
      const limit = query.limit ?? TRANSCRIPT_LIMIT;
      const [page, promptSplit] = await Promise.all([
        transcriptPage(db, session.id, { limit, afterSeq: query.cursor === undefined ? undefined : Number(query.cursor) }),
        sessionPromptSplit(db, session.id),
      ]);
      return { session, ...page, promptSplit, limit, nextCursor: page.nextAfterSeq === undefined ? undefined : String(page.nextAfterSeq) };
    };

    routes.get<{ Querystring: SessionsQueryParameters }>('/sessions', { schema: { querystring: SessionsQuerySchema } }, async (request, reply) => {
      const page = await sessions(request.query);
      return context.page(reply, {
        section: 'sessions',
        title: 'Sessions',
        body: sessionsPage({ search: request.query.q?.trim() ?? '', filter: page.filter, sessions: page.sessions, limit: page.limit, cursor: request.query.cursor, nextCursor: page.nextCursor }),
      });
    });

    routes.get<{ Params: SessionKeyParameters; Querystring: TranscriptQueryParameters }>(
      '/sessions/:key',
      { schema: { params: SessionKeySchema, querystring: TranscriptQuerySchema } },
      async (request, reply) => {
        const page = await transcript(request.params.key, request.query);
        return context.page(reply, {
          section: 'sessions',
          title: titleOf(page.session),
          body: transcriptView({ ...page, cursor: request.query.cursor }),
        });
      },
    );

    routes.get<{ Querystring: SessionsQueryParameters }>('/api/sessions', { schema: { querystring: SessionsQuerySchema } }, async (request) => {
      const page = await sessions(request.query);
      return { sessions: page.sessions.map(sessionJson), nextCursor: page.nextCursor ?? null };
    });

    routes.get<{ Params: SessionKeyParameters; Querystring: TranscriptQueryParameters }>(
      '/api/sessions/:key/transcript',
      { schema: { params: SessionKeySchema, querystring: TranscriptQuerySchema } },
      async (request) => {
        const page = await transcript(request.params.key, request.query);
        return { messages: page.messages.map(messageJson), runs: page.runs.map(runJson), nextCursor: page.nextCursor ?? null };
      },
    );
  },
};

function titleOf(session: ConsoleSession): string {
  return `${sessionLabel(session)} · ${session.channel}`;
}
