import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import { reply } from '../doubles/model-script.js';
import { DEFAULT_TRANSCRIPT } from '../doubles/openai-double.js';
import { createE2eEnvironment, postFeishu, type E2eEnvironment } from '../support/e2e-environment.js';
import { oggOpusBytes, pdfBytes, PNG_BYTES, zipBytes } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let feishu: FeishuDouble;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment({ feishu: true });
  feishu = environment.feishu!;
  service = await startServiceProcess(environment.env({ TELEGRAM_BOT_TOKEN: '', LLM_STREAM: 'false', MEDIA_MAX_BYTES: '4096', ...environment.feishuEnv() }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const post = (body: unknown) => postFeishu(service.url, feishu.delivery(body));
/** Everything the bot replied to a message, as JSON text (posts and cards alike). */
const answerTo = (messageId: string) =>
  waitFor(() => {
    const replies = [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    return replies.length > 0 ? JSON.stringify(replies.map((reply) => reply.content)) : undefined;
  }, { what: `the answer to ${messageId}` });
const modelCallWith = (needle: string) => waitFor(() => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes(needle)), { what: `a model call with ${needle}` });

describe('Feishu attachments, end to end', () => {
  it('downloads an image message through the message resource API and shows it to the model', async () => {
    feishu.addResource('om_img_1', 'img_v3_user_1', PNG_BYTES, 'image');
    const event = feishu.events.message('p2p', 'image', { image_key: 'img_v3_user_1' }, { messageId: 'om_img_1', userOpenId: 'ou_img' });
    expect((await post(event)).status).toBe(200);
    const call = await modelCallWith('[image:');
    expect(call.body.messages.at(-1).content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BYTES.toString('base64')}` } });
    await answerTo('om_img_1');
    const download = feishu.callsOf('/resources/img_v3_user_1')[0]!;
    expect(download.query).toEqual({ type: 'image' });
  });

  it('sends the images of a rich-text post with its words', async () => {
    feishu.addResource('om_post_1', 'img_v3_post_a', PNG_BYTES, 'image');
    const event = feishu.events.post({ title: 'Look', content: [[{ tag: 'text', text: 'which is nicer?' }], [{ tag: 'img', image_key: 'img_v3_post_a' }]] }, { chatType: 'p2p', messageId: 'om_post_1', userOpenId: 'ou_post' });
    await post(event);
    const call = await modelCallWith('which is nicer?');
    expect(call.body.messages.at(-1).content.filter((part: any) => part.type === 'image_url')).toHaveLength(1);
    await answerTo('om_post_1');
  });

  it('a group post with text and two images, addressed to the bot: one user message with all the words and both images', async () => {
    feishu.addResource('om_post_2', 'img_v3_post_b', PNG_BYTES, 'image');
    feishu.addResource('om_post_2', 'img_v3_post_c', PNG_BYTES, 'image');
    const content = [
      [{ tag: 'at', user_id: '@_user_1' }, { tag: 'text', text: ' kitchen before' }],
      [{ tag: 'img', image_key: 'img_v3_post_b' }],
      [{ tag: 'text', text: 'and after' }],
      [{ tag: 'img', image_key: 'img_v3_post_c' }],
      [{ tag: 'text', text: 'what changed?' }],
    ];
    await post(feishu.events.post({ title: 'Renovation', content }, { chatType: 'group', mentionBot: true, messageId: 'om_post_2', userOpenId: 'ou_post2', chatId: 'oc_post_group' }));
    const call = await modelCallWith('what changed?');
    const last = call.body.messages.at(-1).content;
    expect(last.filter((part: any) => part.type === 'image_url')).toHaveLength(2);
    const text = last.find((part: any) => part.type === 'text').text as string;
    for (const words of ['Renovation', 'kitchen before', 'and after', 'what changed?']) expect(text).toContain(words);
    expect(text.match(/\[image: /g)).toHaveLength(2);
    await answerTo('om_post_2');
    const rows = await environment.storedUserMessages('%oc_post_group%');
    expect(rows).toHaveLength(1);
    const stored = rows[0]!.parts[0].text as string;
    expect(stored).toContain('what changed?');
    expect(stored.match(/\[image: /g)).toHaveLength(2);
    expect(rows[0]!.attachments.map((attachment: any) => attachment.platformFileId)).toEqual(['img_v3_post_b', 'img_v3_post_c']);
  });

  it('reads a file message (PDF) and saves it under uploads/', async () => {
    const pdf = pdfBytes('Budget approved for March');
    feishu.addResource('om_file_1', 'file_v3_user_1', pdf, 'file');
    await post(feishu.events.message('p2p', 'file', { file_key: 'file_v3_user_1', file_name: 'budget.pdf' }, { messageId: 'om_file_1', userOpenId: 'ou_file' }));
    await modelCallWith('Budget approved for March');
    await answerTo('om_file_1');
    expect(readFileSync(join(environment.dataDir, 'workspaces', 'ou_file', 'uploads', 'budget.pdf')).equals(pdf)).toBe(true);
  });

  it('transcribes an audio message', async () => {
    feishu.addResource('om_audio_1', 'file_v3_voice_1', oggOpusBytes(), 'file');
    await post(feishu.events.message('p2p', 'audio', { file_key: 'file_v3_voice_1', duration: 2000 }, { messageId: 'om_audio_1', userOpenId: 'ou_voice' }));
    await modelCallWith(DEFAULT_TRANSCRIPT);
    expect(await answerTo('om_audio_1')).toContain(DEFAULT_TRANSCRIPT);
    const [row] = await environment.storedUserMessages('%:dm:ou_voice');
    expect(row!.attachments[0]).toMatchObject({ kind: 'audio', platformFileId: 'file_v3_voice_1', transcript: DEFAULT_TRANSCRIPT });
  });

  it('names a file Feishu no longer serves and a type lie, and answers anyway', async () => {
    await post(feishu.events.message('p2p', 'file', { file_key: 'file_v3_missing', file_name: 'report.docx' }, { messageId: 'om_gone_1', userOpenId: 'ou_gone' }));
    expect(await answerTo('om_gone_1')).toContain('report.docx\\" could not be used: the platform no longer offers it for download');

    feishu.addResource('om_lie_1', 'img_v3_lie', zipBytes(), 'image');
    await post(feishu.events.message('p2p', 'image', { image_key: 'img_v3_lie' }, { messageId: 'om_lie_1', userOpenId: 'ou_lie' }));
    expect(await answerTo('om_lie_1')).toContain('The photo could not be used: it is a zip file, not an image.');
  });

  it('stops reading a file past MEDIA_MAX_BYTES (Feishu declares no size) and says so', async () => {
    feishu.addResource('om_big_1', 'file_v3_big', Buffer.alloc(10_000, 0x61), 'file');
    await post(feishu.events.message('p2p', 'file', { file_key: 'file_v3_big', file_name: 'huge.txt' }, { messageId: 'om_big_1', userOpenId: 'ou_big' }));
    expect(await answerTo('om_big_1')).toContain('huge.txt\\" could not be used: it is larger than the 4 KB limit.');
  });

  it('send_file uploads a picture as an image message and a PDF as a file message, replying to the user', async () => {
    const pdf = pdfBytes('feishu report');
    const folder = join(environment.dataDir, 'workspaces', 'ou_out');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'chart.png'), PNG_BYTES);
    writeFileSync(join(folder, 'report.pdf'), pdf);
    environment.openai.script.respondWith((request) => {
      const results = request.body.messages.filter((message: any) => message.role === 'tool').length;
      if (results === 0) return reply.toolCall('send_file', { path: 'chart.png' });
      if (results === 1) return reply.toolCall('send_file', { path: 'report.pdf' });
      return 'Both sent.';
    });
    await post(feishu.events.p2pText('send both', { messageId: 'om_out_1', userOpenId: 'ou_out' }));
    await waitFor(async () => (await answerTo('om_out_1')).includes('Both sent.'), { what: 'the final answer' });
    const replies = [...feishu.messages.values()].filter((message) => message.parentId === 'om_out_1');
    const image = replies.find((message) => message.msgType === 'image')!;
    const file = replies.find((message) => message.msgType === 'file')!;
    expect(feishu.uploads.get(image.content.image_key)!.bytes.equals(PNG_BYTES)).toBe(true);
    expect(feishu.uploads.get(file.content.file_key)).toMatchObject({ kind: 'file', fileName: 'report.pdf', fileType: 'pdf' });
    expect(feishu.uploads.get(file.content.file_key)!.bytes.equals(pdf)).toBe(true);
    expect(feishu.uploads.size).toBe(2);
  });
});
