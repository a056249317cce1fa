/**
 * A button under a bot's message that stands for a chat command: a click reaches the inbound sink as that command
 * typed by the one who clicked, in the chat (and thread or topic) of the message (`/model` lists models this way).
 */
export interface CommandButton {
  label: string;
  /** The command a click sends, e.g. `/model openai:gpt-4o`. */
  command: string;
  /** The same command shorter (`/model 2`), for a platform whose button data is tight (Telegram: 64 bytes). */
  shortCommand?: string;
}
