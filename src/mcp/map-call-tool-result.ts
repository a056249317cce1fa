import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface BinaryContent {
  mimeType: string;
  /** Base64, as MCP sends it. */
  data: string;
  /** Embedded resources carry the URI they stand for. */
  uri?: string;
}

/**
 * A tool result as the agent can use it today: text for the model, and the binary parts that
 * go to the workspace. Images are kept apart so that vision models can later get them directly.
 * In `text`, each binary part is marked where it appeared (`[image 1: image/png]`, `[file 1: …]`).
 */
export interface MappedToolResult {
  text: string;
  isError: boolean;
  images: BinaryContent[];
  /** Audio and resource blobs. */
  files: BinaryContent[];
}

export function mapCallToolResult(result: CallToolResult): MappedToolResult {
  const lines: string[] = [];
  const images: BinaryContent[] = [];
  const files: BinaryContent[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        lines.push(block.text);
        break;
      case 'image':
        images.push({ mimeType: block.mimeType, data: block.data });
        lines.push(`[image ${images.length}: ${block.mimeType}]`);
        break;
      case 'audio':
        files.push({ mimeType: block.mimeType, data: block.data });
        lines.push(`[file ${files.length}: audio, ${block.mimeType}]`);
        break;
      case 'resource': {
        const { resource } = block;
        const mimeType = resource.mimeType ?? 'application/octet-stream';
        if ('text' in resource && typeof resource.text === 'string') {
          lines.push(`Resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}:\n${resource.text}`);
        } else if ('blob' in resource && typeof resource.blob === 'string') {
          files.push({ mimeType, data: resource.blob, uri: resource.uri });
          lines.push(`[file ${files.length}: resource ${resource.uri}, ${mimeType}]`);
        }
        break;
      }
      case 'resource_link':
        lines.push(
          `Resource link: ${block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? ` — ${block.description}` : ''}`,
        );
        break;
    }
  }
  if (lines.length === 0 && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  return { text: lines.join('\n'), isError: result.isError === true, images, files };
}
