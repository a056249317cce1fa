import type { CommandButton } from '../core/command-buttons.js';
import type { InboundMessage } from '../core/inbound-message.js';
import type { ModelPrice } from '../llm/pricing.js';

/** One model a chat may choose with `/model` (CONTRACT §20). */
export interface ModelChoice {
  /** `provider:model`, what the session keeps. */
  key: string;
  provider: string;
  name: string;
  contextWindow: number;
  /** USD per million tokens (built-in list prices and LLM_PRICES); undefined: not known. */
  price?: ModelPrice | undefined;
}

/** What `/model` acts on; wired to the config, the store and the session queue by the app. */
export interface ModelChoices {
  /** The session's agent's models: its own model first, then its `models`. */
  choices(sessionKey: string): ModelChoice[];
  /** What a choice applies to (the session's agent's `modelChoice`): the session, or every session of its chat. */
  scope(sessionKey: string): 'session' | 'chat';
  /** The chosen `provider:model` in effect for the session (its own, or its chat's); undefined: the agent's own model. */
  chosen(sessionKey: string): Promise<string | undefined>;
  /** Keeps the choice for the session or its chat (undefined: back to the agent's own model); the next turn uses it. */
  choose(sessionKey: string, message: InboundMessage, choice: string | undefined): Promise<void>;
}

/** What the command answers: text, and buttons that send `/model <key>` where the platform has them. */
export interface ModelAnswer {
  text: string;
  buttons?: CommandButton[];
}

/** The model in effect for the session: the chosen one while the agent still allows it, else the agent's own. */
export async function currentChoice(models: ModelChoices, sessionKey: string): Promise<ModelChoice> {
  const choices = models.choices(sessionKey);
  const chosen = await models.chosen(sessionKey);
  return choices.find((choice) => choice.key === chosen) ?? choices[0]!;
}

/** `/model` lists the choices with buttons; `/model <name>` chooses one; a name not in the list is refused with it. */
export async function modelCommand(models: ModelChoices, sessionKey: string, message: InboundMessage, args: string): Promise<ModelAnswer> {
  const choices = models.choices(sessionKey);
  const current = await currentChoice(models, sessionKey);
  if (args === '') return listAnswer(`Models for this chat (now ${shownName(current)}):`, choices, current);
  const picked = findChoice(choices, args);
  if (!picked) return listAnswer(`"${shortened(args)}" is not a model this chat may use. Choose one of:`, choices, current);
  await models.choose(sessionKey, message, picked === choices[0] ? undefined : picked.key);
  const applies = models.scope(sessionKey) === 'chat' ? 'Model for this whole chat (every topic and thread of it)' : 'Model for this session';
  return { text: `${applies}: ${shownName(picked)} (${priceClassOf(picked.price)}). The next answer uses it.` };
}

function listAnswer(heading: string, choices: ModelChoice[], current: ModelChoice): ModelAnswer {
  const lines = choices.map((choice, index) => `${index + 1}. ${shownName(choice)}: ${priceClassOf(choice.price)}${choice.key === current.key ? ' (in use)' : ''}`);
  return {
    text: [heading, ...lines, 'Tap one, or send /model <name>.'].join('\n'),
    buttons: choices.map((choice, index) => ({
      label: `${choice.key === current.key ? '✓ ' : ''}${choice.name}`,
      command: `/model ${choice.key}`,
      shortCommand: `/model ${index + 1}`,
    })),
  };
}

/** `provider:model`, `provider/model`, the model's name alone or its number in the list; any case. */
export function findChoice(choices: ModelChoice[], text: string): ModelChoice | undefined {
  const wanted = text.trim().toLowerCase();
  const position = /^\d+$/.test(wanted) ? Number(wanted) : undefined;
  if (position !== undefined) return choices[position - 1];
  const exact = choices.find((choice) => choice.key.toLowerCase() === wanted || `${choice.provider}/${choice.name}`.toLowerCase() === wanted);
  if (exact) return exact;
  const byName = choices.filter((choice) => choice.name.toLowerCase() === wanted);
  return byName.length === 1 ? byName[0] : undefined;
}

/** What the person wrote, as much as a model name needs: the refusal does not echo a long message back. */
function shortened(text: string): string {
  return text.length <= NAME_ECHO_CHARS ? text : `${text.slice(0, NAME_ECHO_CHARS - 1)}…`;
}

const NAME_ECHO_CHARS = 80;

function shownName(choice: ModelChoice): string {
  return `${choice.provider}/${choice.name}`;
}

/**
 * How dear a model is, from its input price per million tokens: low (up to $0.50), medium (up to $3), high; with
 * both prices so that a person can compare.
 */
export function priceClassOf(price: ModelPrice | undefined): string {
  if (!price) return 'price unknown';
  const level = price.input <= 0.5 ? 'low' : price.input <= 3 ? 'medium' : 'high';
  return `${level} price ($${formatUsd(price.input)} in, $${formatUsd(price.output)} out per million tokens)`;
}

function formatUsd(value: number): string {
  return value < 1 ? value.toFixed(value < 0.1 ? 3 : 2).replace(/0$/, '') : String(Number(value.toFixed(2)));
}
