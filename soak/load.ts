import { seqsIn, tokenOf, type InboundRequest, type SoakChat, type TracedCall } from './chats.js';

/** One message of the soak, from its first POST to its answer. */
export interface SoakMessage {
  chat: string;
  seq: number;
  firstPostAt: number;
  /** When the gateway first answered 2xx; undefined: never accepted. */
  acceptedAt?: number;
  answeredAt?: number;
  /** POSTs it took (a retry follows a 5xx, a refused connection or a timeout, as the platforms do). */
  attempts: number;
  /** Why the last refused POST was refused: `503`, `ECONNREFUSED`, `timeout`, … (kept for a message never accepted). */
  lastRefusal?: string;
}

export interface LoadOptions {
  chats: SoakChat[];
  /** The gateway's base URL (it keeps its port across restarts). */
  gatewayUrl: string;
  /** No new message is started after this (epoch ms). */
  stopAt: number;
  answerTimeoutMs: number;
  /** Pause between an answer and the chat's next message. */
  thinkMs: [number, number];
}

const POLL_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = ([low, high]: [number, number]) => low + Math.random() * (high - low);

/** POSTs until the gateway takes it: 2xx; anything else (5xx while Redis is away, a dead gateway) is retried with backoff. */
async function deliver(baseUrl: string, request: () => InboundRequest, message: SoakMessage, giveUpAt: number): Promise<void> {
  let delay = 200;
  for (;;) {
    message.attempts += 1;
    const { path, headers, body } = request();
    try {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) {
        message.acceptedAt = Date.now();
        return;
      }
      message.lastRefusal = String(response.status);
    } catch (error) {
      // the gateway is unreachable or did not answer in time
      message.lastRefusal = refusalOf(error);
    }
    if (Date.now() > giveUpAt) return;
    await sleep(delay);
    delay = Math.min(delay * 2, 2_000);
  }
}

/** A failed fetch in a word: the socket error's code (a dead gateway refuses connections), or a timeout. */
export function refusalOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Every chat sends one message at a time, as a person waiting for the bot would: the next goes out once the
 * answer to the previous one is in the chat (or it timed out). Resolves when every chat has stopped.
 */
export async function runChats(options: LoadOptions): Promise<SoakMessage[]> {
  const messages: SoakMessage[] = [];
  await Promise.all(
    options.chats.map(async (chat, chatIndex) => {
      await sleep(Math.random() * 2_000); // not all at once
      for (let seq = 1; Date.now() < options.stopAt; seq += 1) {
        const token = tokenOf(chatIndex, chat.platform, seq);
        const message: SoakMessage = { chat: chat.name, seq, firstPostAt: Date.now(), attempts: 0 };
        messages.push(message);
        await deliver(options.gatewayUrl, chat.message(seq, `${token} how are you?`), message, options.stopAt + options.answerTimeoutMs);
        if (message.acceptedAt === undefined) return;
        const deadline = message.acceptedAt + options.answerTimeoutMs;
        while (Date.now() < deadline) {
          if (chat.answers().some(({ text }) => seqsIn(text, chatIndex, chat.platform).includes(seq))) {
            message.answeredAt = Date.now();
            break;
          }
          await sleep(POLL_MS);
        }
        await sleep(between(options.thinkMs));
      }
    }),
  );
  return messages;
}

export interface Verdict {
  /** Accepted by the gateway (what the platform would count as delivered to the bot). */
  messages: number;
  answered: number;
  lost: number;
  /** Answers beyond the first, over all messages. */
  duplicated: number;
  outOfOrder: number;
  /** Never accepted before the soak gave up on them (a 5xx or no gateway for minutes). */
  neverAccepted: number;
  /** The never-accepted messages by why their last POST was refused (`503`, `ECONNREFUSED`, `timeout`, …). */
  refusals: Record<string, number>;
  /** Chats with a loss, a duplicate or a reordering, for a closer look. */
  examples: string[];
  /** Every message answered more than once: the platform ids of its answers, to find them in the logs (SOAK_LOG_DIR). */
  duplicates: Array<{ chat: string; seq: number; answerIds: string[]; trace?: TracedCall[] }>;
}

/** What the doubles saw, per chat: each accepted message answered exactly once, in the order the chat asked. */
export function judge(chats: SoakChat[], messages: SoakMessage[]): Verdict {
  const verdict: Verdict = { messages: 0, answered: 0, lost: 0, duplicated: 0, outOfOrder: 0, neverAccepted: 0, refusals: {}, examples: [], duplicates: [] };
  chats.forEach((chat, chatIndex) => {
    const answers = chat.answers();
    const answerSeqs = answers.map(({ text }) => seqsIn(text, chatIndex, chat.platform));
    const times = new Map<number, number>();
    for (const seqs of answerSeqs) for (const seq of seqs) times.set(seq, (times.get(seq) ?? 0) + 1);
    let trouble = false;
    for (const message of messages.filter((candidate) => candidate.chat === chat.name)) {
      if (message.acceptedAt === undefined) {
        verdict.neverAccepted += 1;
        const refusal = message.lastRefusal ?? 'not sent';
        verdict.refusals[refusal] = (verdict.refusals[refusal] ?? 0) + 1;
        continue;
      }
      verdict.messages += 1;
      const count = times.get(message.seq) ?? 0;
      if (count === 0) verdict.lost += 1;
      else verdict.answered += 1;
      if (count > 1) {
        verdict.duplicated += count - 1;
        const answerIds = answers.filter((_, index) => answerSeqs[index]!.includes(message.seq)).map(({ id }) => id);
        verdict.duplicates.push({ chat: chat.name, seq: message.seq, answerIds, ...(chat.trace ? { trace: chat.trace(answerIds) } : {}) });
      }
      if (count !== 1) trouble = true;
    }
    let highest = 0;
    for (const seq of answerSeqs.flat()) {
      if (seq < highest) {
        verdict.outOfOrder += 1;
        trouble = true;
      }
      highest = Math.max(highest, seq);
    }
    if (trouble && verdict.examples.length < 10) verdict.examples.push(chat.name);
  });
  return verdict;
}
