import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeUserId } from '../../src/agent/tools/workspace.js';
import { DEFAULT_TRANSCRIPT } from '../doubles/openai-double.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { oggOpusBytes, pdfBytes, PNG_BYTES, zipBytes } from '../support/media-fixtures.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;
const MAX_BYTES = 4096;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ MEDIA_MAX_BYTES: String(MAX_BYTES), MEDIA_TEXT_MAX_CHARS: '200' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
const answerTo = (chatId: number) => waitFor(() => sentTo(chatId)[0]?.params.text as string | undefined, { what: `the answer to ${chatId}` });
const modelCallWith = (needle: string) => waitFor(() => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes(needle)), { what: `a model call with ${needle}` });
const storedUser = (chatId: number) => environment.storedUserMessages(`%:dm:${chatId}`);
const document = (fileId: string, fileName: string, mimeType: string, size: number) => ({ file_id: fileId, file_unique_id: `u${fileId}`, file_name: fileName, mime_type: mimeType, file_size: size });
const workspaceFile = (userId: number, path: string) => join(environment.dataDir, 'workspaces', String(userId), path);

describe('Telegram attachments, end to end', () => {
  it('sends a photo to the model as image input with its caption, and stores a placeholder instead of the bytes', async () => {
    const fileId = environment.telegram.addFile(PNG_BYTES, 'jpg');
    const photo = [{ file_id: fileId, file_unique_id: 'p', width: 1, height: 1, file_size: PNG_BYTES.length }];
    const update = environment.telegram.makeUpdate.privateText(2001, '', { text: undefined, caption: 'what is in this picture?', photo });
    expect((await postTelegramUpdate(service.url, update)).status).toBe(200);

    const call = await modelCallWith('what is in this picture?');
    const content = call.body.messages.at(-1).content;
    expect(Array.isArray(content)).toBe(true);
    expect(content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BYTES.toString('base64')}` } });
    expect(content.find((part: any) => part.type === 'text').text).toContain('what is in this picture?');
    expect(await answerTo(2001)).toContain('what is in this picture?');
    expect(environment.telegram.callsOf('getFile').some((getFile) => getFile.params.file_id === fileId)).toBe(true);

    const [row] = await storedUser(2001);
    expect(JSON.stringify(row!.parts)).not.toContain(PNG_BYTES.toString('base64'));
    expect(JSON.stringify(row!.parts)).toContain('[image:');
    expect(row!.attachments).toEqual([{ kind: 'image', mimeType: 'image/png', size: PNG_BYTES.length, platformFileId: fileId, outcome: 'used' }]);

    // the next turn carries the placeholder, never the bytes again
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2001, 'and now?'));
    const next = await modelCallWith('and now?');
    expect(JSON.stringify(next.body)).not.toContain(PNG_BYTES.toString('base64'));
    expect(JSON.stringify(next.body.messages)).toContain('[image:');
  });

  it('transcribes a voice note: the transcript is the user text in the model request and in the database', async () => {
    const bytes = oggOpusBytes();
    const fileId = environment.telegram.addFile(bytes, 'oga');
    const update = environment.telegram.makeUpdate.privateText(2002, '', { text: undefined, voice: { file_id: fileId, file_unique_id: 'v', duration: 2, mime_type: 'audio/ogg', file_size: bytes.length } });
    await postTelegramUpdate(service.url, update);

    const call = await modelCallWith(DEFAULT_TRANSCRIPT);
    expect(call.body.messages.at(-1).content).toContain('[Voice message');
    const [transcription] = await waitFor(() => (environment.openai.transcriptions.length > 0 ? environment.openai.transcriptions : undefined));
    expect(transcription!.model).toBe('gpt-4o-mini-transcribe');
    expect(transcription!.bytes.equals(bytes)).toBe(true);
    expect(await answerTo(2002)).toContain(DEFAULT_TRANSCRIPT);
    const [row] = await storedUser(2002);
    expect(JSON.stringify(row!.parts)).toContain(DEFAULT_TRANSCRIPT);
    expect(row!.attachments[0]).toMatchObject({ kind: 'audio', platformFileId: fileId, outcome: 'used', transcript: DEFAULT_TRANSCRIPT });
    const spans = await waitFor(async () => {
      const rows = await environment.sql`SELECT sp.name, sp.kind, sp.output_preview, sp.duration_ms FROM run_spans sp JOIN runs r ON r.id = sp.run_id JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE '%:dm:2002' AND sp.kind = 'media' ORDER BY sp.position`;
      return rows.length >= 2 ? rows : undefined;
    });
    expect(spans.map((span) => span.name)).toEqual(['download:audio', 'transcribe']);
    expect(spans[0]!.output_preview).toContain(`${bytes.length} bytes from telegram`);

    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.command(2002, 2002, 'status'));
    const status = await waitFor(() => sentTo(2002).map((call) => String(call.params.text)).find((text) => text.includes('Queue:')), { what: '/status' });
    expect(status).toMatch(/Attachments: 1 file\(s\), 0\.00 MB downloaded; 1 voice message\(s\) transcribed in \d+\.\d s/);
  });

  it('reads a text document and a PDF into the request and saves both under uploads/', async () => {
    const text = Buffer.from('Shopping list: apples, pears, and 3 kinds of cheese.');
    const textId = environment.telegram.addFile(text, 'txt');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2003, '', { text: undefined, caption: 'summarize', document: document(textId, 'list.txt', 'text/plain', text.length) }));
    const textCall = await modelCallWith('3 kinds of cheese');
    expect(textCall.body.messages.at(-1).content).toContain('uploads/list.txt');
    await answerTo(2003);
    expect(readFileSync(workspaceFile(2003, 'uploads/list.txt')).equals(text)).toBe(true);

    const pdf = pdfBytes('Invoice total is 42 euros');
    const pdfId = environment.telegram.addFile(pdf, 'pdf');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2004, '', { text: undefined, document: document(pdfId, '../../evil invoice.pdf', 'application/pdf', pdf.length) }));
    await modelCallWith('Invoice total is 42 euros');
    await answerTo(2004);
    expect(readFileSync(workspaceFile(2004, 'uploads/evil invoice.pdf')).equals(pdf)).toBe(true);
    const [row] = await storedUser(2004);
    expect(row!.attachments[0]).toMatchObject({ kind: 'document', fileName: '../../evil invoice.pdf', mimeType: 'application/pdf', savedAs: 'uploads/evil invoice.pdf', outcome: 'used' });
    expect(row!.attachments[0].extractedText).toContain('Invoice total is 42 euros');
  });

  it('cuts a long document at MEDIA_TEXT_MAX_CHARS with a note', async () => {
    const long = Buffer.from(`${'word '.repeat(100)}THE-END-MARKER`);
    const fileId = environment.telegram.addFile(long, 'md');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2005, 'read it', { document: document(fileId, 'long.md', 'text/markdown', long.length) }));
    const call = await modelCallWith('cut at 200 characters');
    expect(JSON.stringify(call.body.messages.at(-1))).not.toContain('THE-END-MARKER');
    await answerTo(2005);
  });

  it('names an oversized file, a type lie and a failed download in the reply, and still answers the text', async () => {
    const big = Buffer.alloc(MAX_BYTES + 1, 0x61);
    const bigId = environment.telegram.addFile(big, 'txt');
    // declared small, really big: the download itself is cut off at the cap
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2006, 'here is my log', { document: document(bigId, 'huge.log', 'text/plain', 10) }));
    const bigAnswer = await answerTo(2006);
    expect(bigAnswer).toMatch(/"huge\.log" could not be used: it is larger than the 4 KB limit\./);
    expect(bigAnswer).toContain('You said:');
    expect(bigAnswer).toContain('here is my log');

    const lieId = environment.telegram.addFile(zipBytes(), 'png');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2007, 'my cat', { document: document(lieId, 'cat.png', 'image/png', 300) }));
    expect(await answerTo(2007)).toMatch(/"cat\.png" could not be used: it is a zip file, not an image\./);
    const [lieRow] = await storedUser(2007);
    expect(lieRow!.attachments[0]).toMatchObject({ kind: 'image', mimeType: 'application/zip', outcome: 'unsupported' });

    const goneId = environment.telegram.addFile(PNG_BYTES, 'jpg');
    environment.telegram.expireFile(goneId);
    const photo = [{ file_id: goneId, file_unique_id: 'g', width: 1, height: 1 }];
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2008, '', { text: undefined, caption: 'old photo', photo }));
    const goneAnswer = await answerTo(2008);
    expect(goneAnswer).toMatch(/The photo could not be used: the platform no longer offers it for download/);
    expect(goneAnswer).toContain('old photo');
    expect(existsSync(workspaceFile(2008, 'uploads'))).toBe(false);
  });

  it('answers an album of three photos, sent as three updates, as one turn: one user message with the caption and every image', async () => {
    const fileIds = [0, 1, 2].map(() => environment.telegram.addFile(PNG_BYTES, 'jpg'));
    const callsBefore = environment.openai.modelCalls.length;
    for (const [index, fileId] of fileIds.entries()) {
      const photo = [{ file_id: fileId, file_unique_id: `album-${index}`, width: 1, height: 1 }];
      const extra = { text: undefined, photo, media_group_id: 'album-900', ...(index === 0 ? { caption: 'our holiday' } : {}) };
      expect((await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2009, '', extra))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    // the album is what the user sent: ONE user message holding the caption, a placeholder per photo and the three images
    const call = await waitFor(() => environment.openai.modelCalls.slice(callsBefore).find((modelCall) => JSON.stringify(modelCall.body.messages).includes('our holiday')), { what: 'the album turn' });
    const users = call.body.messages.filter((message: any) => message.role === 'user');
    expect(users).toHaveLength(1);
    const content = call.body.messages.at(-1).content;
    expect(content.filter((part: any) => part.type === 'image_url')).toHaveLength(3);
    const text = content.find((part: any) => part.type === 'text').text as string;
    expect(text).toContain('our holiday');
    for (const fileId of fileIds) expect(text).toContain(`[image: image-${fileId.slice(-12)} (image/png`);
    await answerTo(2009);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sentTo(2009)).toHaveLength(1);
    expect(environment.openai.modelCalls.slice(callsBefore).filter((modelCall) => JSON.stringify(modelCall.body).includes('image_url'))).toHaveLength(1);
    const runs = await environment.sql`SELECT r.id FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE '%:dm:2009'`;
    expect(runs).toHaveLength(1);

    // stored as sent: one user message, the caption and a placeholder per part, every part's file
    const rows = await storedUser(2009);
    expect(rows).toHaveLength(1);
    const storedText = rows[0]!.parts[0].text as string;
    expect(storedText).toContain('our holiday');
    expect(storedText.match(/\[image: /g)).toHaveLength(3);
    expect(storedText).not.toContain(PNG_BYTES.toString('base64'));
    expect(rows[0]!.attachments.map((attachment: any) => attachment.platformFileId)).toEqual(fileIds);

    // the next turn's history carries the same single message (placeholders, no bytes)
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2009, 'which one is the beach?'));
    const next = await modelCallWith('which one is the beach?');
    expect(JSON.stringify(next.body)).not.toContain(PNG_BYTES.toString('base64'));
    const history = next.body.messages.filter((message: any) => message.role === 'user');
    expect(history).toHaveLength(2);
    expect(history[0].content).toContain('our holiday');
    expect(history[0].content.match(/\[image: /g)).toHaveLength(3);
  });

  it('in a group, answers the uncaptioned parts of an album whose captioned part mentions the bot, in the same turn', async () => {
    const chatId = -100777;
    const bot = environment.telegram.botUsername;
    const callsBefore = environment.openai.modelCalls.length;
    for (const index of [0, 1, 2]) {
      const fileId = environment.telegram.addFile(PNG_BYTES, 'jpg');
      const caption = index === 0 ? { caption: `@${bot} which one is best?`, caption_entities: [{ type: 'mention', offset: 0, length: bot.length + 1 }] } : {};
      const update = environment.telegram.makeUpdate.groupText(chatId, 2010, '', { text: undefined, photo: [{ file_id: fileId, file_unique_id: `g${index}`, width: 1, height: 1 }], media_group_id: 'album-group-1', ...caption });
      expect((await postTelegramUpdate(service.url, update)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const call = await waitFor(() => environment.openai.modelCalls.slice(callsBefore).find((modelCall) => JSON.stringify(modelCall.body.messages).includes('which one is best?')), { what: 'the group album turn' });
    const last = call.body.messages.at(-1).content;
    expect(last.filter((part: any) => part.type === 'image_url')).toHaveLength(3);
    expect(last.find((part: any) => part.type === 'text').text).toContain('which one is best?');
    expect(last.find((part: any) => part.type === 'text').text.match(/\[image: /g)).toHaveLength(3);
    await waitFor(() => sentTo(chatId)[0]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sentTo(chatId)).toHaveLength(1);
  });

  it('saves a document sent in a group into the group’s workspace, not the sender’s', async () => {
    const chatId = -100888;
    const bot = environment.telegram.botUsername;
    const text = Buffer.from('group minutes: ship on Friday');
    const fileId = environment.telegram.addFile(text, 'txt');
    const update = environment.telegram.makeUpdate.groupText(chatId, 2011, '', {
      text: undefined,
      caption: `@${bot} summarize`,
      caption_entities: [{ type: 'mention', offset: 0, length: bot.length + 1 }],
      document: document(fileId, 'minutes.txt', 'text/plain', text.length),
    });
    await postTelegramUpdate(service.url, update);
    await modelCallWith('ship on Friday');
    await waitFor(() => sentTo(chatId)[0]);
    const groupWorkspace = sanitizeUserId(`group:telegram:${environment.telegram.botId}:${chatId}`);
    expect(readFileSync(join(environment.dataDir, 'workspaces', groupWorkspace, 'uploads', 'minutes.txt')).equals(text)).toBe(true);
    expect(existsSync(workspaceFile(2011, 'uploads'))).toBe(false);
  });

  it('counts attachments by kind and outcome, and the bytes downloaded', async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    expect(text).toMatch(/^bot_attachments_total\{kind="image",outcome="used"\} [1-9]/m);
    expect(text).toMatch(/^bot_attachments_total\{kind="document",outcome="too-large"\} 1/m);
    expect(text).toMatch(/^bot_attachment_download_bytes_total\{channel="telegram"\} [1-9]/m);
    expect(text).toMatch(/^bot_transcription_seconds_count 1/m);
  });
});
