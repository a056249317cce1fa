import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocketModeServer } from '../channels/slack/websocket-server.js';
import { createE2eEnvironment, postFeishu, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

// `npm start` runs the esbuild bundle, not the tsc output the other end-to-end tests run: this builds one the
// same way (scripts/bundle.mjs) and drives it as a user would.
const ROOT = join(import.meta.dirname, '..', '..');
const OUTDIR = join(ROOT, 'dist', `bundle-test-${process.pid}`);

let environment: E2eEnvironment;
let service: ServiceProcess;

const STATIC_IMPORT = /(?:^|[;}\s])import\s*(?:[\w${}\s,*]+from\s*)?"\.\/([\w.-]+\.js)"/g;
const DYNAMIC_IMPORT = /import\("\.\/([\w.-]+\.js)"\)/g;

/** What a start loads: the entry, the main module it imports once the Node version is checked, their static imports, transitively. */
function startupChunks(): Set<string> {
  const entry = readFileSync(join(OUTDIR, 'cli.js'), 'utf8');
  const seen = new Set<string>(['cli.js']);
  const pending = [...entry.matchAll(STATIC_IMPORT), ...entry.matchAll(DYNAMIC_IMPORT)].map((match) => match[1]!);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...[...readFileSync(join(OUTDIR, file), 'utf8').matchAll(STATIC_IMPORT)].map((match) => match[1]!));
  }
  return seen;
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs'), OUTDIR], { stdio: 'inherit' });
  environment = await createE2eEnvironment();
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  rmSync(OUTDIR, { recursive: true, force: true });
});

describe('the production bundle', () => {
  it('wraps no function in esbuild\u2019s __name (a defineProperty per closure made), and names again the classes bundling renamed', () => {
    const sources = readdirSync(OUTDIR).filter((file) => file.endsWith('.js')).map((file) => readFileSync(join(OUTDIR, file), 'utf8'));
    expect(sources.filter((source) => source.includes('__name('))).toEqual([]);
    // the OpenAI and Anthropic SDKs both define APIError: one of them is renamed in the bundle, and named again
    const restored = sources.join('\n').match(/class APIError\d+ extends \w+\{static\{Object\.defineProperty\(this,"name",\{value:"(\w+)"/);
    expect(restored?.[1]).toBe('APIError');
  });

  it('keeps the start-up code ASCII, so V8 holds each script source as one byte per character', () => {
    const chunks = [...startupChunks()];
    // cli.js → cli/main's chunk → the service's chunks: more than the entry alone
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      const source = readFileSync(join(OUTDIR, chunk), 'utf8');
      const offending = [...source.matchAll(/[^\x00-\x7f]/g)].slice(0, 3).map((match) => source.slice(Math.max(0, match.index - 40), match.index + 10));
      expect({ chunk, offending }).toEqual({ chunk, offending: [] });
    }
  });

  it('leaves the OpenTelemetry SDK and its exporters out of what a start loads: they are a chunk of their own, loaded only when OTLP export is on', () => {
    // the SDK's packages are ES modules: the bundle names no path of theirs, but keeps their class names
    const sdk = /\b(?:BatchSpanProcessorBase|OTLPTraceExporter|OTLPMetricExporter|PeriodicExportingMetricReader)=class\b/;
    const loaded = [...startupChunks()].filter((chunk) => sdk.test(readFileSync(join(OUTDIR, chunk), 'utf8')));
    expect(loaded).toEqual([]);
    const lazy = readdirSync(OUTDIR).filter((file) => file.endsWith('.js') && sdk.test(readFileSync(join(OUTDIR, file), 'utf8')));
    expect(lazy.length).toBeGreaterThan(1);
  });

  it('gives grammY Node’s own AbortController in place of the polyfill package it imports', () => {
    const sources = readdirSync(OUTDIR).filter((file) => file.endsWith('.js')).map((file) => readFileSync(join(OUTDIR, file), 'utf8'));
    const grammyShim = sources.filter((source) => source.includes('"node_modules/grammy/out/shim.node.js"'));
    expect(grammyShim).toHaveLength(1);
    expect(grammyShim[0]).toContain('"scripts/native-abort-controller.cjs"');
    expect(sources.filter((source) => source.includes('node_modules/abort-controller/') || source.includes('node_modules/event-target-shim/'))).toEqual([]);
  });

  it('starts, migrates and answers a Telegram DM end to end', async () => {
    service = await startServiceProcess(environment.env(), ['start'], { cli: join(OUTDIR, 'cli.js') });
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(4101, 'hello bundle'));
    const sent = await waitFor(() => environment.telegram.callsOf('sendMessage').find((call) => call.params.chat_id === 4101));
    expect(sent.params.text).toBe('You said: hello bundle');
    const stored = await waitFor(async () => {
      const rows = await environment.storedMessages();
      return rows.length >= 2 ? rows : undefined;
    });
    expect(stored.map((row) => row.role)).toEqual(['user', 'assistant']);
  }, 60_000);

  it('keeps V8\u2019s compiled code of its modules in the compile cache, for the next start to read back', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'bundle-compile-cache-'));
    try {
      // the default place, under the OS's temporary folder (NODE_COMPILE_CACHE would turn the cache on by itself)
      const started = await startServiceProcess({ ...environment.env(), TMPDIR: cacheDir }, ['start'], { cli: join(OUTDIR, 'cli.js') });
      expect((await fetch(`${started.url}/readyz`)).status).toBe(200);
      await started.stop();
      // one folder per Node build, holding an entry per module compiled: the bundle's chunks
      const entries = readdirSync(join(cacheDir, 'node-compile-cache'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(entries.length).toBeGreaterThan(5);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('loads a platform SDK it imports lazily (CommonJS: a default export only in the bundle) and answers on Feishu and over Slack Socket Mode', async () => {
    const platforms = await createE2eEnvironment({ slack: true, feishu: true });
    const socket = await startSocketModeServer();
    platforms.slack!.setSocketUrl(socket.url);
    let lazy: ServiceProcess | undefined;
    try {
      lazy = await startServiceProcess(
        platforms.env({ TELEGRAM_BOT_TOKEN: '', LLM_STREAM: 'false', ...platforms.feishuEnv(), ...platforms.slackEnv(), SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: 'xapp-1-A0APP001-bundle' }),
        ['start'],
        { cli: join(OUTDIR, 'cli.js') },
      );
      const feishu = platforms.feishu!;
      const question = feishu.events.p2pText('hello lark', { userOpenId: 'ou_bundle', chatId: 'oc_bundle' });
      expect((await postFeishu(lazy.url, feishu.delivery(question))).status).toBe(200);
      const answer = await waitFor(() => [...feishu.messages.values()].find((message) => message.parentId === question.event.message.message_id));
      expect(JSON.stringify(answer.content)).toContain('You said: hello lark');

      await waitFor(() => socket.connections === 1);
      const slack = platforms.slack!;
      socket.send({ envelope_id: 'env-bundle', type: 'events_api', payload: slack.makeEvent.dm('U0BUNDLE1', 'hello socket'), accepts_response_payload: false, retry_attempt: 0, retry_reason: '' });
      const posted = await waitFor(() => [...slack.messages.values()].find((message) => message.text.includes('You said: hello socket')));
      expect(posted.channel).toBe('D0BUNDLE1');
    } finally {
      await lazy?.stop();
      await socket.close();
      await platforms.close();
    }
  }, 90_000);
});
