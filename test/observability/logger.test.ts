import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withLogContext } from '../../src/observability/log-context.js';
import { createLogger } from '../../src/observability/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('logger', () => {
  it('writes JSON lines and redacts tokens, secrets and Authorization headers', () => {
    const { lines, logger } = capture();
    logger.child({ module: 'test' }).info(
      {
        config: { token: '123:abc', apiKey: 'sk-live', webhookSecret: 'wh-value-1', signingSecret: 'sig-value', botToken: 'xoxb-1', password: 'pw-value' },
        headers: { authorization: 'Bearer sk-live', 'x-telegram-bot-api-secret-token': 'wh-value-2' },
        token: 'top-level-token',
      },
      'configured',
    );
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({ level: 30, module: 'test', msg: 'configured' });
    for (const secret of ['123:abc', 'sk-live', 'wh-value-1', 'wh-value-2', 'sig-value', 'xoxb-1', 'pw-value', 'top-level-token']) expect(line).not.toContain(secret);
    expect(entry.config.token).toBe('[redacted]');
    expect(entry.headers.authorization).toBe('[redacted]');
  });

  it('keeps debug lines (where message text goes) out at info level', () => {
    const { lines, logger } = capture();
    logger.debug({ text: 'what the user wrote' }, 'inbound message');
    expect(lines).toHaveLength(0);
  });

  it('stamps every line written during a turn with its runId and sessionKey, in any module', async () => {
    const { lines, logger } = capture();
    const channelLogger = logger.child({ module: 'telegram' });
    await withLogContext({ runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      channelLogger.warn('sendMessage failed');
    });
    channelLogger.info('outside any turn');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    expect(inside).toMatchObject({ module: 'telegram', runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2' });
    expect(outside.runId).toBeUndefined();
  });
});
