import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiEmbedder } from '../../src/llm/index.js';
import { toVectorLiteral } from '../../src/memory/vector-store.js';
import { DOUBLE_EMBEDDING_DIMENSIONS, startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double.js';

let openai: OpenAiDouble;
beforeAll(async () => {
  openai = await startOpenAiDouble();
});
afterAll(async () => {
  await openai.close();
});

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('embeddings through the openai SDK', () => {
  it('embeds a batch in input order, and texts sharing words are closer', async () => {
    const embedder = createOpenAiEmbedder({ model: 'text-embedding-3-small', apiKey: 'sk-test', baseUrl: openai.baseUrl });
    const [tea, teaAgain, compilers] = await embedder.embed(['Grace drinks green tea', 'which tea does Grace drink', 'Bob writes compilers']);
    expect(tea).toHaveLength(DOUBLE_EMBEDDING_DIMENSIONS);
    expect(cosine(tea!, teaAgain!)).toBeGreaterThan(cosine(tea!, compilers!));
    expect(openai.embeddingCalls).toHaveLength(1);
    expect(openai.embeddingCalls[0]!.body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'float' });
    expect(toVectorLiteral([0.5, -1, 2])).toBe('[0.5,-1,2]');
    expect(() => toVectorLiteral([Number.NaN])).toThrow();
  });

  it("the double answers the SDK's default base64 encoding as OpenAI does", async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: openai.baseUrl });
    const response = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello world' });
    const floats = await createOpenAiEmbedder({ model: 'm', apiKey: 'sk-test', baseUrl: openai.baseUrl }).embed(['hello world']);
    expect(Array.from(response.data[0]!.embedding as unknown as ArrayLike<number>).map((value) => value.toFixed(5))).toEqual(floats[0]!.map((value) => value.toFixed(5)));
  });
});
