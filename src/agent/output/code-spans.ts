const FENCED = /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n[ \t]*\1[ \t]*$/gm;
const INLINE = /`[^`\n]+`/g;
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/**
 * Code the model shows on purpose (a `<think>` tag in an example) must survive the cleanup, so
 * code spans are swapped for placeholders before the tag-stripping steps and put back after.
 */
export function protectCode(text: string): { text: string; restore: (cleaned: string) => string } {
  const saved: string[] = [];
  const hide = (code: string): string => `\uE000${saved.push(code) - 1}\uE001`;
  const hidden = text.replace(FENCED, hide).replace(INLINE, hide);
  return { text: hidden, restore: (cleaned) => cleaned.replace(PLACEHOLDER, (_match, index: string) => saved[Number(index)] ?? '') };
}
