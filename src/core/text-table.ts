/**
 * A table as monospaced text with padded columns, for platforms without tables (Telegram, Slack):
 * the channel wraps it in its own code-block syntax.
 */
export function textTable(header: string[], rows: string[][], align: Array<'left' | 'right' | 'center' | null>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return align[column] === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(' | ')
      .trimEnd();
  const separator = widths.map((width) => '-'.repeat(Math.max(width, 1))).join('-|-');
  return [line(header), separator, ...rows.map(line)].join('\n');
}
