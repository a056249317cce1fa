import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { convertAnthropicTools, convertOpenAiTools } from '../../src/llm/convert-tools.js';

const weather = {
  name: 'weather',
  description: 'The weather in a city',
  parameters: Type.Object({ city: Type.String({ description: 'City name' }) }),
};

describe('convertTools', () => {
  it('wraps a TypeBox schema as an OpenAI function tool, as plain JSON', () => {
    const [tool] = convertOpenAiTools([weather]);
    expect(tool).toEqual({
      type: 'function',
      function: {
        name: 'weather',
        description: 'The weather in a city',
        parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      },
    });
    expect(Object.getOwnPropertySymbols(tool!.function.parameters)).toEqual([]);
  });

  it('gives Anthropic an input_schema of type object', () => {
    expect(convertAnthropicTools([weather, { name: 'now', description: 'The time', parameters: {} }])).toEqual([
      {
        name: 'weather',
        description: 'The weather in a city',
        input_schema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      },
      { name: 'now', description: 'The time', input_schema: { type: 'object' } },
    ]);
  });
});
