import { describe, expect, it } from 'vitest';
import { sanitizeAssistantContent } from '../../src/agent/index.js';

describe('sanitizeAssistantContent', () => {
  describe('step 1: garbled tool-call XML', () => {
    it.each([
      ['a whole garbled call → empty', '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>', ''],
      ['text around a call is kept', 'Let me check.\n<tool_call>{"name": "x", "arguments": {}}</tool_call>\nDone.', 'Let me check.\n\nDone.'],
      [
        'invoke/parameter markup',
        'Here:\n<function_calls><invoke name="bash"><parameter name="command">ls</parameter></invoke></function_calls>',
        'Here:',
      ],
      ['minimax namespace', 'Sure <minimax:tool_call>{"name":"a"}</minimax:tool_call>', 'Sure'],
      ['function= form', 'Ok.<function=search>{"q": "x"}</function>', 'Ok.'],
      ['unclosed call followed by JSON', 'Answer first. <tool_call> {"name": "x", "arguments": {"a": "}"}}', 'Answer first.'],
      ['never wipe an answer that has text: tags around words', '<tool_call>The weather in Oslo is sunny.</tool_call>', 'The weather in Oslo is sunny.'],
      ['never wipe an answer that has text: stray tags', 'The answer is 42.</tool_call>', 'The answer is 42.'],
      ['DeepSeek special tokens', 'Hi<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>x\n{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', 'Hi'],
      ['code the user asked for survives', 'Example:\n```xml\n<tool_call>{"name": "x"}</tool_call>\n```', 'Example:\n```xml\n<tool_call>{"name": "x"}</tool_call>\n```'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('step 2: text-format tool calls', () => {
    it.each([
      ['a call line with inline JSON', 'Checking.\n[Tool Call: read_file({"path": "a.txt"})]\nThe file says hi.', 'Checking.\nThe file says hi.'],
      ['a call with JSON arguments on the next lines', '[Tool Call: bash]\nArguments: {\n  "command": "ls"\n}\nFiles listed.', 'Files listed.'],
      ['a result with its output up to the blank line', '[Tool Result for bash]\nfile1\nfile2\n\nThere are two files.', 'There are two files.'],
      ['a result with JSON output', '[Tool Result] {"ok": true,\n\n "n": 2}\nDone.', 'Done.'],
      ['historical context, multi-line', '[Historical context: earlier the user\nasked about cats]\nCats are great.', 'Cats are great.'],
      ['a bracket that is not a marker stays', '[Note] keep me', '[Note] keep me'],
      ['words after the JSON on its line survive', '[Tool Call: x] {"a": 1} Now the answer.', 'Now the answer.'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('step 3: reasoning blocks', () => {
    it.each([
      ['think', '<think>secret plan</think>The answer.', 'The answer.'],
      ['thinking, multi-line', '<thinking>\nstep 1\nstep 2\n</thinking>\n\nThe answer.', 'The answer.'],
      ['thought', '<thought>hmm</thought>Yes.', 'Yes.'],
      ['antThinking any case', '<ANTTHINKING>x</antthinking>Yes.', 'Yes.'],
      ['redacted_thinking with attributes', '<redacted_thinking data="abc">zzz</redacted_thinking>Yes.', 'Yes.'],
      ['with attributes', '<think type="deep" id=1>plan</think>Go.', 'Go.'],
      ['several blocks', '<think>a</think>One. <Thinking>b</Thinking>Two.', 'One. Two.'],
      ['a closing tag without its opener', 'reasoning without a tag</think>Final answer.', 'Final answer.'],
      ['an opening tag never closed', 'Answer.<think>and then I was cut off', 'Answer.'],
      ['inline code mentioning the tag stays', 'Wrap it in `<think>` tags.', 'Wrap it in `<think>` tags.'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('step 4: <final>', () => {
    it.each([
      ['unwrapped', '<final>The answer.</final>', 'The answer.'],
      ['after reasoning', '<think>x</think><final>\nYes.\n</final>', 'Yes.'],
      ['any case', '<FINAL>ok</Final>', 'ok'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('step 5: echoed [System Message] blocks', () => {
    it.each([
      ['a block up to the blank line', '[System Message] You must be nice.\nMore system text.\n\nHello!', 'Hello!'],
      ['in the middle', 'Hi.\n\n[System Message]\nsecret\n\nBye.', 'Hi.\n\nBye.'],
      ['any case', '[system message] x\n\nOk.', 'Ok.'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('step 6: consecutive duplicate paragraphs', () => {
    it.each([
      ['a stutter collapses', 'Hello there.\n\nHello there.\n\nHow are you?', 'Hello there.\n\nHow are you?'],
      ['whitespace differences count as the same', 'Same.  \n\n  Same.', 'Same.'],
      ['non-consecutive repeats stay', 'A.\n\nB.\n\nA.', 'A.\n\nB.\n\nA.'],
      ['single newlines are not paragraph breaks', 'Line.\nLine.', 'Line.\nLine.'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  describe('steps 7 and trim: leading blank lines', () => {
    it.each([
      ['leading blank lines go', '\n\n   \nHello', 'Hello'],
      ['indentation after the first line stays', '\n\n- a\n    - b', '- a\n    - b'],
      ['trailing whitespace goes', 'Hello\n\n  ', 'Hello'],
    ])('%s', (_name, input, expected) => {
      expect(sanitizeAssistantContent(input)).toBe(expected);
    });
  });

  it('runs the steps in order on a messy answer', () => {
    const messy =
      '<think>plan it</think>\n\n<tool_call>{"name":"x"}</tool_call>\n[Tool Result for x]\nraw output\n\n<final>Here is the summary.\n\nHere is the summary.\n\nAnything else?</final>';
    expect(sanitizeAssistantContent(messy)).toBe('Here is the summary.\n\nAnything else?');
  });

  it('leaves an ordinary answer untouched', () => {
    const answer = 'Sure! Here is a list:\n\n1. One\n2. Two\n\n```js\nconsole.log("<final>");\n```';
    expect(sanitizeAssistantContent(answer)).toBe(answer);
  });
});
