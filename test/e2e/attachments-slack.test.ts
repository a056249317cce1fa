import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import { DEFAULT_TRANSCRIPT } from '../doubles/openai-double.js';
import { createE2eEnvironment, postSlack, type E2eEnvironment } from '../support/e2e-environment.js';
import { oggOpusBytes, pdfBytes, PNG_BYTES, zipBytes } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let slack: SlackDouble;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true });
  slack = environment.slack!;
  service = await startServiceProcess(environment.env({ TELEGRAM_BOT_TOKEN: '', LLM_STREAM: 'false', MEDIA_MAX_BYTES: '4096', ...environment.slackEnv() }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const postEvent = (body: unknown) => postSlack(service.url, slack.signedRequest('/webhooks/slack/events', body));
const answerIn = (channel: string) =>
  waitFor(() => slack.callsOf('chat.postMessage').find((call) => call.params.channel === channel && !call.failed)?.params.text as string | undefined, { what: `the answer in ${channel}` });
const modelCallWith = (needle: string) => waitFor(() => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes(needle)), { what: `a model call with ${needle}` });
const fileShare = (user: string, text: string, files: unknown[]) => slack.makeEvent.dm(user, text, { subtype: 'file_share', files });

describe('Slack attachments, end to end', () => {
  it('downloads a shared photo with the bot token and sends it to the model as an image', async () => {
    const file = slack.addFile(PNG_BYTES, 'screenshot.png', 'image/png');
    expect((await postEvent(fileShare('U0PIC001', 'what does this show?', [file]))).status).toBe(200);
    const call = await modelCallWith('what does this show?');
    expect(call.body.messages.at(-1).content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BYTES.toString('base64')}` } });
    await answerIn('D0PIC001');
    expect(slack.downloads).toContainEqual({ fileId: file.id, authorized: true });
    expect(slack.downloads.every((download) => download.authorized)).toBe(true);
  });

  it('several files in one message: one user message with the words, every image and the document, stored with a placeholder per file', async () => {
    const images = [slack.addFile(PNG_BYTES, 'before.png', 'image/png'), slack.addFile(PNG_BYTES, 'after.png', 'image/png')];
    const notes = slack.addFile(Buffer.from('the wall was painted blue'), 'notes.txt', 'text/plain');
    await postEvent(slack.makeEvent.mention('C0MULTI01', 'U0MULTI01', 'compare the photos with my notes', { files: [...images, notes] }));
    const call = await modelCallWith('compare the photos with my notes');
    const content = call.body.messages.at(-1).content;
    expect(content.filter((part: any) => part.type === 'image_url')).toHaveLength(2);
    const text = content.find((part: any) => part.type === 'text').text as string;
    expect(text).toContain('[image: before.png (image/png');
    expect(text).toContain('[image: after.png (image/png');
    expect(text).toContain('the wall was painted blue');
    await answerIn('C0MULTI01');
    const rows = await environment.storedUserMessages('%C0MULTI01%');
    expect(rows).toHaveLength(1);
    const stored = rows[0]!.parts[0].text as string;
    expect(stored).toContain('compare the photos with my notes');
    expect(stored.match(/\[image: /g)).toHaveLength(2);
    expect(stored).toContain('saved as uploads/notes.txt');
    expect(rows[0]!.attachments.map((attachment: any) => attachment.fileName)).toEqual(['before.png', 'after.png', 'notes.txt']);
  });

  it('reads a PDF into the request and saves it under uploads/ in the sender’s workspace', async () => {
    const pdf = pdfBytes('Meeting moved to Thursday');
    const file = slack.addFile(pdf, 'agenda.pdf', 'application/pdf');
    await postEvent(fileShare('U0PDF001', '', [file]));
    await modelCallWith('Meeting moved to Thursday');
    await answerIn('D0PDF001');
    expect(readFileSync(join(environment.dataDir, 'workspaces', 'U0PDF001', 'uploads', 'agenda.pdf')).equals(pdf)).toBe(true);
    const [row] = await environment.storedUserMessages('%:dm:U0PDF001');
    expect(row!.attachments[0]).toMatchObject({ kind: 'document', fileName: 'agenda.pdf', platformFileId: file.id, mimeType: 'application/pdf', outcome: 'used' });
  });

  it('transcribes an audio clip', async () => {
    const file = slack.addFile(oggOpusBytes(), 'audio_message.ogg', 'audio/ogg');
    await postEvent(fileShare('U0VOX001', '', [file]));
    await modelCallWith(DEFAULT_TRANSCRIPT);
    expect(await answerIn('D0VOX001')).toContain(DEFAULT_TRANSCRIPT);
  });

  it('says so when the transcription fails, and answers the words', async () => {
    environment.openai.transcriber = () => ({ status: 500 });
    try {
      const file = slack.addFile(oggOpusBytes(), 'audio_message.ogg', 'audio/ogg');
      await postEvent(fileShare('U0VXF001', 'and my voice note', [file]));
      const answer = await answerIn('D0VXF001');
      expect(answer).toContain('"audio_message.ogg" could not be used: the transcription failed.');
      expect(answer).toContain('and my voice note');
      // the SDK's one retry, then the user is told: nothing is retried forever
      expect(environment.openai.requests.filter((request) => request.path.startsWith('/v1/audio/transcriptions') && request.status === 500).length).toBeLessThanOrEqual(2);
    } finally {
      environment.openai.transcriber = () => DEFAULT_TRANSCRIPT;
    }
  });

  it('names a deleted file, a type lie and an oversized file, and answers the rest', async () => {
    const gone = slack.addFile(PNG_BYTES, 'gone.png', 'image/png');
    slack.removeFile(gone.id);
    const lie = slack.addFile(zipBytes(), 'photo.png', 'image/png');
    const big = slack.addFile(Buffer.alloc(5000, 0x61), 'big.txt', 'text/plain');
    const hidden = { id: 'F0HIDDEN1', name: 'old.png', mimetype: 'image/png', mode: 'hidden_by_limit' };
    await postEvent(fileShare('U0BAD001', 'three files', [gone, lie, big, hidden]));
    const answer = await answerIn('D0BAD001');
    expect(answer).toContain('"gone.png" could not be used: the platform no longer offers it for download');
    expect(answer).toContain('"photo.png" could not be used: it is a zip file, not an image.');
    expect(answer).toContain('"big.txt" could not be used: it is larger than the 4 KB limit.');
    expect(answer).toContain('"old.png" could not be used: the platform no longer offers it for download');
    expect(slack.downloads.some((download) => download.fileId === 'F0HIDDEN1')).toBe(false);
    expect(answer).toContain('three files');
  });

  it('send_file uploads through the v2 flow (getUploadURLExternal, upload, completeUploadExternal) into the conversation, once', async () => {
    const pdf = pdfBytes('slack report');
    const folder = join(environment.dataDir, 'workspaces', 'U0OUT001');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'report.pdf'), pdf);
    environment.openai.script.respondWith((request) =>
      request.body.messages.some((message: any) => message.role === 'tool') ? 'Uploaded.' : reply.toolCall('send_file', { path: 'report.pdf', caption: 'your report' }),
    );
    await postEvent(slack.makeEvent.dm('U0OUT001', 'send me the report'));
    await waitFor(() => slack.callsOf('chat.postMessage').some((call) => call.params.channel === 'D0OUT001' && call.params.text === 'Uploaded.'), { what: 'the answer' });
    expect(slack.uploads).toHaveLength(1);
    expect(slack.uploads[0]).toMatchObject({ fileName: 'report.pdf', channel: 'D0OUT001', initialComment: 'your report' });
    expect(slack.uploads[0]!.bytes.equals(pdf)).toBe(true);
    expect(slack.callsOf('files.getUploadURLExternal')).toHaveLength(1);
    expect(slack.callsOf('files.completeUploadExternal')).toHaveLength(1);
  });
});
