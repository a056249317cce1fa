export const DEFAULT_MAX_OUTPUT_BYTES = 200 * 1024;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

export function formatBytes(bytes: number): string {
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

export function truncationNotice(shownBytes: number, totalBytes: number): string {
  return `\n\n[output truncated: showing the first ${formatBytes(shownBytes)} of ${formatBytes(totalBytes)}]`;
}

/** Caps a text at `maxBytes` of UTF-8, appending a notice when something was cut. */
export function capText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(0, maxBytes).toString('utf8') + truncationNotice(maxBytes, bytes.length);
}

export function formatDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 1000)} s`;
}
