import { protectCode } from './code-spans.js';
import { stripGarbledToolXml } from './strip-garbled-tool-xml.js';
import { stripReasoning, unwrapFinal } from './strip-reasoning.js';
import { stripToolCallText } from './strip-tool-call-text.js';

/** Step 5: drop `[System Message]` blocks the model echoed, up to the next blank line. */
export function stripEchoedSystemMessages(text: string): string {
  const kept: string[] = [];
  let skipping = false;
  for (const line of text.split('\n')) {
    if (/^\s*\[System Message\]/i.test(line)) skipping = true;
    else if (skipping && line.trim() === '') skipping = false;
    else if (!skipping) kept.push(line);
  }
  return kept.join('\n');
}

/** Step 6: a paragraph identical to the one before it is model stutter. */
export function collapseDuplicateParagraphs(text: string): string {
  const pieces = text.split(/(\n[ \t]*\n\s*)/);
  const kept: string[] = [];
  let previous: string | undefined;
  for (let index = 0; index < pieces.length; index += 2) {
    const paragraph = pieces[index] ?? '';
    const separator = pieces[index - 1] ?? '';
    const key = paragraph.trim();
    if (key !== '' && key === previous) continue;
    kept.push(kept.length === 0 ? paragraph : separator + paragraph);
    if (key !== '') previous = key;
  }
  return kept.join('');
}

/** Step 7: blank lines before the first content line go; its indentation stays. */
export function stripLeadingBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '');
}

/** The 7-step cleanup of seed 000 §3, in the order, then trim. */
export function sanitizeAssistantContent(text: string): string {
  const code = protectCode(text);
  const tagsStripped = unwrapFinal(stripReasoning(stripToolCallText(stripGarbledToolXml(code.text))));
  const restored = code.restore(tagsStripped);
  return stripLeadingBlankLines(collapseDuplicateParagraphs(stripEchoedSystemMessages(restored))).trim();
}
