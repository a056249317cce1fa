// The benchmark's peer (issue 23, CONTRACT §8 `peers`): a minimal bot on Vercel's Chat SDK with its Redis state and
// `concurrency: 'queue'`, answering Telegram webhooks through an OpenAI-compatible API. It runs as its own child process
// (`node dist/bench/peers/chat-sdk-bot.js`) so its CPU and memory are measured as the service's are. Development
// dependency of the bench only: it never ships in the service.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRedisState } from '@chat-adapter/state-redis';
import { createTelegramAdapter } from '@chat-adapter/telegram';
import { Chat, ConsoleLogger, type Message, type MessageContext, type Thread } from 'chat';
import OpenAI from 'openai';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const port = Number(required('PORT'));
const model = process.env.PEER_MODEL ?? 'gpt-4o-mini';
const openai = new OpenAI({ apiKey: required('OPENAI_API_KEY'), baseURL: required('OPENAI_BASE_URL') });

// warnings only, as the service runs in the benchmark (LOG_LEVEL=warn)
const logger = new ConsoleLogger('warn');
const bot = new Chat({
  userName: required('TELEGRAM_BOT_USERNAME'),
  adapters: {
    telegram: createTelegramAdapter({
      mode: 'webhook',
      botToken: required('TELEGRAM_BOT_TOKEN'),
      secretToken: required('TELEGRAM_WEBHOOK_SECRET_TOKEN'),
      apiUrl: required('TELEGRAM_API_BASE_URL'),
      logger: logger.child('telegram'),
    }),
  },
  state: createRedisState({ url: required('REDIS_URL'), keyPrefix: required('PEER_KEY_PREFIX'), logger: logger.child('redis') }),
  concurrency: 'queue',
  logger,
});

/**
 * One model call for the message and the ones the queue collected meanwhile (`context.skipped`), then one post of the
 * answer as a plain string, as the Chat SDK's own examples do. (`{ markdown }` would go to Telegram's sendRichMessage
 * first, which the Telegram double does not implement.)
 */
async function answer(thread: Thread, message: Message, context?: MessageContext): Promise<void> {
  const texts = [...(context?.skipped ?? []), message].map((each) => each.text);
  const completion = await openai.chat.completions.create({
    model,
    messages: [{ role: 'system', content: 'You are a helpful assistant.' }, ...texts.map((text) => ({ role: 'user' as const, content: text }))],
  });
  await thread.post(completion.choices[0]?.message.content ?? '');
}

// DMs that nobody subscribed to are routed as mentions, so one handler serves DMs and group @mentions
bot.onNewMention(answer);

/** The webhook's Node request as the Web `Request` the Chat SDK takes. */
async function toRequest(incoming: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const each of value) headers.append(name, each);
  }
  return new Request(`http://127.0.0.1:${port}${incoming.url ?? '/'}`, { method: incoming.method ?? 'GET', headers, body: Buffer.concat(chunks) });
}

async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  if (incoming.method === 'GET' && incoming.url === '/readyz') {
    outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (incoming.method !== 'POST' || incoming.url !== '/webhooks/telegram') {
    outgoing.writeHead(404).end();
    return;
  }
  const response = await bot.webhooks.telegram(await toRequest(incoming));
  outgoing.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
}

await bot.initialize();
const server = createServer((incoming, outgoing) => {
  handle(incoming, outgoing).catch((error: unknown) => {
    process.stderr.write(`peer: ${String(error)}\n`);
    if (!outgoing.headersSent) outgoing.writeHead(500);
    outgoing.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void bot.shutdown().finally(() => process.exit(0));
});
