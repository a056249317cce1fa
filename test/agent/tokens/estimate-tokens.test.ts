import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateTextTokens, estimateTokens, TokenCalibration } from '../../../src/agent/tokens/index.js';
import { userText } from '../../../src/core/chat-message.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

const CHINESE =
  '飞书开放平台为开发者提供了丰富的接口，包括消息、群组、通讯录和云文档等能力。机器人收到用户的消息后，' +
  '需要在三秒内返回响应，否则平台会重新推送事件。为了避免重复处理，我们在收到事件时先根据事件编号去重，' +
  '然后把消息写入队列，由后台的工作进程调用大模型生成回答。如果回答很长，会按照段落拆分成多条消息发送，' +
  '并且保证代码块不会被截断。用户在群聊中提到机器人时，机器人会回复到原消息下面，方便大家查看上下文。' +
  '当模型调用失败时，系统会按照指数退避的方式重试，超过次数后向用户发送一条简短的道歉，并把完整的错误记录在日志中。';
const JAPANESE =
  'このドキュメントでは、エージェントの実行ループについて説明します。ユーザーからメッセージを受け取ると、' +
  'エージェントはモデルを呼び出し、必要に応じてツールを実行し、その結果を再びモデルに渡します。' +
  '最大反復回数に達した場合は、これまでに行った作業を要約してユーザーに伝えます。キャンセルされた場合は、' +
  '実行中のツールも中断され、部分的な結果は保存されません。';
const MIXED = `请帮我看一下这个函数为什么报错：\n\n\`\`\`ts\nexport function parse(input: string): number[] {\n  return input.split(',').map((part) => Number.parseInt(part.trim(), 10));\n}\n\`\`\`\n错误信息是 TypeError: Cannot read properties of undefined (reading 'split')。`;

function samples(): Record<string, string> {
  return {
    englishProse: readFileSync(join(ROOT, 'README.md'), 'utf8').slice(0, 12_000),
    typescript: readFileSync(join(ROOT, 'src', 'redis', 'session-queue.ts'), 'utf8'),
    json: readFileSync(join(ROOT, 'drizzle', 'meta', '0000_snapshot.json'), 'utf8').slice(0, 12_000),
    chinese: CHINESE.repeat(3),
    japanese: JAPANESE.repeat(3),
    mixed: MIXED.repeat(5),
  };
}

describe('token estimate (o200k-calibrated)', () => {
  it.each(Object.entries(samples()))('%s is within 20 %% of the real o200k count', (_name, text) => {
    const real = countTokens(text);
    const estimate = estimateTextTokens(text);
    expect(Math.abs(estimate - real) / real).toBeLessThan(0.2);
  });

  it('counts Chinese and Japanese where characters ÷ 4 undercounts them by more than 40 %', () => {
    for (const text of [CHINESE, JAPANESE]) {
      const real = countTokens(text);
      expect((real - text.length / 4) / real).toBeGreaterThan(0.4);
      expect(Math.abs(estimateTextTokens(text) - real) / real).toBeLessThan(0.2);
    }
  });

  it('counts an astral character (emoji) once, not per UTF-16 unit', () => {
    expect(estimateTextTokens('😀')).toBe(2);
    expect(estimateTextTokens('')).toBe(0);
  });

  it('adds a small per-message overhead and caches per message', () => {
    const message = userText('hello world');
    expect(estimateTokens([message])).toBeGreaterThan(estimateTextTokens('hello world'));
    expect(estimateTokens([message, message])).toBe(2 * estimateTokens([message]));
  });
});

describe('calibration from the provider usage', () => {
  it('moves the factor toward the reported count, bounded and smoothed', () => {
    const calibration = new TokenCalibration();
    expect(calibration.correct('m', 1000)).toBe(1000);
    calibration.observe('m', 1000, { inputTokens: 1400, outputTokens: 10 });
    expect(calibration.factor('m')).toBeCloseTo(1.4);
    calibration.observe('m', 1000, { inputTokens: 400, outputTokens: 10, cacheReadTokens: 1000 });
    expect(calibration.factor('m')).toBeCloseTo(1.4);
    calibration.observe('m', 1000, { inputTokens: 100_000, outputTokens: 10 });
    expect(calibration.factor('m')).toBeCloseTo(1.4 + 0.3 * (3 - 1.4));
    expect(calibration.factor('other')).toBe(1);
  });

  it('ignores tiny requests, whose fixed overheads say nothing about the ratio', () => {
    const calibration = new TokenCalibration(() => 1.2);
    calibration.observe('m', 10, { inputTokens: 100, outputTokens: 1 });
    expect(calibration.factor('m')).toBe(1.2);
  });
});
