/**
 * Models known NOT to take image input; anything else is assumed to (an unknown compatible model that refuses
 * images fails its call, which the turn reports like any model error).
 */
const TEXT_ONLY_MODELS = [/^gpt-3\.5/, /^gpt-4-(0314|0613|32k)/, /^o1-mini/, /^o3-mini/, /^deepseek-(chat|reasoner|coder)/, /^text-/, /^claude-(2|instant)/];

export function modelTakesImages(model: string): boolean {
  const name = model.toLowerCase().split('/').at(-1) ?? '';
  return !TEXT_ONLY_MODELS.some((pattern) => pattern.test(name));
}
