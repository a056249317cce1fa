import type { Usage } from '../llm/chat-model.js';

/**
 * Cost in US dollars of one call; undefined when the model has no known price. Injected so the loop
 * stays pure; the service passes the LLM layer's price table (src/llm/pricing.ts).
 */
export type PriceTable = (model: string, usage: Usage) => number | undefined;
