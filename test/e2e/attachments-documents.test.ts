import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Long documents with the default limits: a document's text is bounded by MEDIA_TEXT_MAX_CHARS (100000) alone,
 * not by the input guard's limit for typed words (32768), and a cut one says where the rest is.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env({ LLM_STREAM: 'false' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
const answerTo = (chatId: number) => waitFor(() => sentTo(chatId)[0]?.params.text as string | undefined, { what: `the answer to ${chatId}` });
const firstCallWith = (needle: string) =>
  waitFor(() => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1)).includes(needle)), { what: `a model call with ${needle}` });
const sendDocument = (chatId: number, bytes: Buffer, fileName: string, caption: string) => {
  const fileId = environment.telegram.addFile(bytes, 'md');
  const document = { file_id: fileId, file_unique_id: `u${fileId}`, file_name: fileName, mime_type: 'text/markdown', file_size: bytes.length };
  return postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, '', { text: undefined, caption, document }));
};
/** `length` characters of numbered lines, then the end marker. */
const longText = (length: number, marker: string) => {
  let text = '';
  for (let line = 1; text.length < length - marker.length; line++) text += `line ${line}: the quick brown fox jumps over the lazy dog\n`;
  return `${text.slice(0, length - marker.length)}${marker}`;
};

describe('long documents', () => {
  it('a 60,000-character document reaches the model whole, with its closing marker; typed words keep the guard’s limit', async () => {
    const text = longText(60_000, 'END-OF-60K');
    expect(text).toHaveLength(60_000);
    await sendDocument(3101, Buffer.from(text), 'sixty.md', 'summarize this');
    const call = await firstCallWith('summarize this');
    const content = call.body.messages.at(-1).content as string;
    expect(content).toContain(`<document>\n${text}\n</document>`);
    expect(content).not.toContain('truncated');
    expect(content).not.toContain('cut at');
    await answerTo(3101);

    // the typed words alone are still cut at the guard's limit
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(3102, `typed ${'y'.repeat(40_000)}`));
    const typed = await firstCallWith('typed yyy');
    expect(typed.body.messages.at(-1).content).toContain('[Message truncated: the user sent 40006 characters; only the first 32768 are shown.]');
  });

  it('a 150,000-character document is cut at MEDIA_TEXT_MAX_CHARS with a note naming the stored file, and read_file reads the rest', async () => {
    const text = longText(150_000, 'END-OF-150K');
    const answered = 'I read the whole file.';
    environment.openai.script.respondWith((request) => {
      if (request.body.messages.some((message: any) => message.role === 'tool')) return answered;
      const note = /read_file \{"path": "([^"]+)", "offset": (\d+)\}/.exec(String(request.body.messages.at(-1).content));
      return note ? reply.toolCall('read_file', { path: note[1], offset: Number(note[2]) }) : 'no note';
    });
    try {
      await sendDocument(3103, Buffer.from(text), 'long notes.md', 'read all of it');
      const call = await firstCallWith('read all of it');
      const content = call.body.messages.at(-1).content as string;
      expect(content).toContain(`<document>\n${text.slice(0, 100_000)}\n</document>`);
      expect(content).not.toContain('END-OF-150K');
      expect(content).toContain(
        '[Document cut at 100000 characters: 50000 of its 150000 characters are left out. The whole file is uploads/long notes.md in your workspace: ' +
          'read the rest with read_file {"path": "uploads/long notes.md", "offset": 100000} (offset in bytes).]',
      );
      expect(await answerTo(3103)).toBe(answered);

      // the model followed the note: the tool result is the rest of the file, to its end
      const followUp = environment.openai.modelCalls.find((modelCall) => modelCall.body.messages.some((message: any) => message.role === 'tool' && String(message.content).includes('END-OF-150K')));
      const toolResult = followUp!.body.messages.find((message: any) => message.role === 'tool').content as string;
      expect(toolResult).toBe(text.slice(100_000));
      expect(readFileSync(join(environment.dataDir, 'workspaces', '3103', 'uploads', 'long notes.md'), 'utf8')).toBe(text);
    } finally {
      environment.openai.script.reset();
    }
  });
});
