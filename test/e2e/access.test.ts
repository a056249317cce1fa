import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_MESSAGES, MAX_PENDING_PER_CHANNEL } from '../../src/access/index.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;
let serviceEnv: Record<string, string>;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  serviceEnv = environment.env({
    DM_POLICY: 'pairing',
    ALLOW_FROM: 'telegram:7500',
    GROUP_ALLOWLIST: 'telegram:-100555',
    USER_RATE_LIMIT: '3',
    // whole answers only, so every answer is one sendMessage
    LLM_STREAM: 'false',
  });
  service = await startServiceProcess(serviceEnv);
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

/** `npm run cli -- <args>` as the operator runs it: a separate process on the same database. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...serviceEnv, LOG_LEVEL: 'warn' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const post = (update: unknown) => postTelegramUpdate(service.url, update);
const updates = () => environment.telegram.makeUpdate;
const textsTo = (chatId: number) =>
  environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const modelSaw = (marker: string) => environment.openai.modelCalls.some((call) => JSON.stringify(call.body.messages).includes(marker));
const settle = () => new Promise((resolve) => setTimeout(resolve, 700));

describe('DM_POLICY=pairing', () => {
  it('gives an unknown user a code; once the operator approves it, the user is answered', async () => {
    await post(updates().privateText(7001, 'hello, may I?'));
    await waitFor(() => textsTo(7001).length > 0, { what: 'the pairing code' });
    const code = /pairing code is ([A-Z0-9]{8})/.exec(textsTo(7001)[0]!)?.[1];
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    await settle();
    expect(modelSaw('hello, may I?')).toBe(false);

    const listed = await cli(['pairing', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${code}  telegram:7001  User 7001`);

    const approved = await cli(['pairing', 'approve', code!.toLowerCase()]);
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toMatch(/^approved telegram:7001 \(User 7001\)/);
    expect((await cli(['pairing', 'approve', 'ZZZZZZZZ'])).code).toBe(1);

    await post(updates().privateText(7001, 'am I in now?'));
    await waitFor(() => textsTo(7001).length > 1, { what: 'the answer after approval' });
    expect(textsTo(7001)[1]).toBe('You said: am I in now?');
    const [approvedRow] = await environment.sql`SELECT channel, user_id FROM approved_senders`;
    expect(approvedRow).toMatchObject({ channel: 'telegram', user_id: '7001' });
  });

  it(`keeps at most ${MAX_PENDING_PER_CHANNEL} codes pending on a channel and tells the next stranger to try later`, async () => {
    const strangers = Array.from({ length: MAX_PENDING_PER_CHANNEL }, (_, index) => 7101 + index);
    for (const userId of strangers) await post(updates().privateText(userId, `stranger ${userId}`));
    await waitFor(() => strangers.every((userId) => textsTo(userId).length > 0), { what: `${MAX_PENDING_PER_CHANNEL} codes` });
    for (const userId of strangers) expect(textsTo(userId)[0]).toMatch(/pairing code is [A-Z0-9]{8}/);
    const oneTooMany = 7101 + MAX_PENDING_PER_CHANNEL;
    await post(updates().privateText(oneTooMany, `stranger ${oneTooMany}`));
    await waitFor(() => textsTo(oneTooMany).length > 0, { what: 'the try-later answer' });
    expect(textsTo(oneTooMany)).toEqual([ACCESS_MESSAGES.pairingFull()]);
    const [pending] = await environment.sql`SELECT count(*)::int AS n FROM pairing_requests WHERE approved_at IS NULL`;
    expect(pending!.n).toBe(MAX_PENDING_PER_CHANNEL);
    await settle();
    expect(modelSaw('stranger')).toBe(false);
  });
});

describe('GROUP_ALLOWLIST', () => {
  it('answers in a listed group and ignores the others', async () => {
    await post(updates().mention(-100556, 7601, 'is anyone here?'));
    await post(updates().mention(-100555, 7602, 'hello listed group'));
    await waitFor(() => textsTo(-100555).length > 0, { what: 'the listed group’s answer' });
    expect(textsTo(-100555)).toHaveLength(1);
    expect(textsTo(-100555)[0]).toMatch(/hello listed group$/);
    await settle();
    expect(textsTo(-100556)).toEqual([]);
    expect(modelSaw('is anyone here?')).toBe(false);
  });
});

describe('USER_RATE_LIMIT', () => {
  it('answers 3 messages a minute and the 4th politely, once; the 5th is dropped silently', async () => {
    for (const index of [1, 2, 3]) {
      await post(updates().privateText(7500, `rate ${index}`));
      await waitFor(() => textsTo(7500).length === index, { what: `answer ${index}` });
    }
    await post(updates().privateText(7500, 'rate 4'));
    await waitFor(() => textsTo(7500).length === 4, { what: 'the rate limit notice' });
    await post(updates().privateText(7500, 'rate 5'));
    await settle();
    expect(textsTo(7500)).toEqual(['You said: rate 1', 'You said: rate 2', 'You said: rate 3', ACCESS_MESSAGES.rateLimited(3)]);
    expect(modelSaw('rate 4')).toBe(false);
    expect(modelSaw('rate 5')).toBe(false);
  });
});
