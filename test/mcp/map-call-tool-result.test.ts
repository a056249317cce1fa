import { describe, expect, it } from 'vitest';
import { mapCallToolResult } from '../../src/mcp/map-call-tool-result.js';

describe('mapCallToolResult', () => {
  it('keeps text, marks images and files where they were, and keeps their bytes apart', () => {
    const mapped = mapCallToolResult({
      content: [
        { type: 'text', text: 'Before' },
        { type: 'image', data: 'aW1n', mimeType: 'image/png' },
        { type: 'audio', data: 'YXVk', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'YmxvYg==' } },
        { type: 'resource_link', uri: 'https://x.example/r', name: 'R' },
        { type: 'text', text: 'After' },
      ],
    });
    expect(mapped).toEqual({
      text: [
        'Before',
        '[image 1: image/png]',
        '[file 1: audio, audio/wav]',
        'Resource file:///a.txt:\ninline text',
        '[file 2: resource file:///b.bin, application/octet-stream]',
        'Resource link: R <https://x.example/r>',
        'After',
      ].join('\n'),
      isError: false,
      images: [{ mimeType: 'image/png', data: 'aW1n' }],
      files: [
        { mimeType: 'audio/wav', data: 'YXVk' },
        { mimeType: 'application/octet-stream', data: 'YmxvYg==', uri: 'file:///b.bin' },
      ],
    });
  });

  it('uses structured content when there is no content, and carries isError', () => {
    expect(mapCallToolResult({ content: [], structuredContent: { temperature: 21 } }).text).toBe('{"temperature":21}');
    expect(mapCallToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true })).toMatchObject({ text: 'nope', isError: true });
  });
});
