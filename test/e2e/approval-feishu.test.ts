import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postFeishu, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: ['*']
`;

let environment: E2eEnvironment;
let feishu: FeishuDouble;
let service: ServiceProcess;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment({ feishu: true });
  feishu = environment.feishu!;
  configDirectory = mkdtempSync(join(tmpdir(), 'approval-feishu-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  environment.openai.script.respondWith((request, lastUserText) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    return messages.at(-1)?.role === 'tool' ? `Tool said: ${messages.at(-1)!.content}` : `You said: ${lastUserText}`;
  });
  service = await startServiceProcess(
    environment.env({ TELEGRAM_BOT_TOKEN: '', LLM_STREAM: 'false', CONFIG_FILE: join(configDirectory, 'bot.config.yaml'), ...environment.feishuEnv() }),
  );
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

type Button = { tag: string; text: { content: string }; value: { approval: string } };
const buttonsOf = (card: any): Button[] => (card?.elements ?? []).flatMap((element: any) => (element.tag === 'action' ? element.actions : []));
const clickCard = async (value: Record<string, unknown>, userOpenId: string, messageId: string) => {
  const delivery = feishu.delivery(feishu.events.cardAction(value, { userOpenId, messageId }));
  const response = await fetch(`${service.url}/webhooks/feishu/cards`, { method: 'POST', headers: { 'content-type': 'application/json', ...delivery.headers }, body: delivery.rawBody });
  return { status: response.status, body: (await response.json()) as { toast?: { type: string; content: string } } };
};

describe('approval in chat (Feishu interactive card)', () => {
  it('replies with a card of three buttons; a verified click by the requester runs the tool; others get an error toast', async () => {
    const event = feishu.events.p2pText('please write it down', { userOpenId: 'ou_approver', chatId: 'oc_approval_chat' });
    const userMessageId = event.event.message.message_id;
    const notes = join(environment.dataDir, 'workspaces', 'ou_approver', 'notes.txt');
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'from feishu\n' }));
    expect((await postFeishu(service.url, feishu.delivery(event))).status).toBe(200);

    const prompt = await waitFor(() => [...feishu.messages.values()].find((message) => message.parentId === userMessageId && message.msgType === 'interactive' && buttonsOf(message.content).length === 3), { what: 'the approval card' });
    expect(buttonsOf(prompt.content).map((button) => button.text.content)).toEqual(['Allow once', 'Allow for this session', 'Deny']);
    expect(JSON.stringify(prompt.content)).toContain('write_file');
    const once = buttonsOf(prompt.content)[0]!.value;

    const unsigned = await fetch(`${service.url}/webhooks/feishu/cards`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(feishu.events.cardAction(once, { userOpenId: 'ou_approver', messageId: prompt.messageId })) });
    expect(unsigned.status).toBe(401);

    const stranger = await clickCard(once, 'ou_stranger', prompt.messageId);
    expect(stranger.body.toast).toEqual({ type: 'error', content: 'Only the person who asked can answer this request.' });
    expect(existsSync(notes)).toBe(false);

    const allowed = await clickCard(once, 'ou_approver', prompt.messageId);
    expect(allowed.body.toast).toEqual({ type: 'success', content: 'Allowed once.' });
    const answer = await waitFor(() => [...feishu.messages.values()].find((message) => message.parentId === userMessageId && JSON.stringify(message.content).includes('Tool said:')), { what: 'the answer after approval' });
    expect(JSON.stringify(answer.content)).toContain('Wrote');
    expect(readFileSync(notes, 'utf8')).toBe('from feishu\n');
    const settled = feishu.messages.get(prompt.messageId)!;
    expect(buttonsOf(settled.content)).toEqual([]);
    expect(JSON.stringify(settled.content)).toContain('Allowed once.');

    const again = await clickCard(once, 'ou_approver', prompt.messageId);
    expect(again.body.toast).toEqual({ type: 'error', content: 'This request was already answered.' });
  });
});
