export type CommandName = 'stop' | 'new' | 'status' | 'compact' | 'usage' | 'help' | 'tasks' | 'memory' | 'forget' | 'model';

export interface ChatCommand {
  name: CommandName;
  args: string;
}

const ALIASES: Record<string, CommandName> = {
  stop: 'stop',
  new: 'new',
  reset: 'new',
  status: 'status',
  compact: 'compact',
  usage: 'usage',
  help: 'help',
  tasks: 'tasks',
  memory: 'memory',
  forget: 'forget',
  model: 'model',
  start: 'help', // Telegram sends /start when someone opens the bot
};

export const COMMAND_DESCRIPTIONS: Array<{ command: string; description: string }> = [
  { command: 'stop', description: 'Stop the answer in progress and drop waiting messages' },
  { command: 'new', description: 'Start a fresh conversation' },
  { command: 'status', description: 'Model, tokens used, context fill and queue' },
  { command: 'compact', description: 'Summarize the conversation now' },
  { command: 'model', description: 'List the models you can choose; /model <name> chooses one for this chat' },
  { command: 'usage', description: "Today's and this month's tokens and cost, and the budget left" },
  { command: 'tasks', description: "List this chat's scheduled tasks; /tasks cancel <id> cancels one" },
  { command: 'memory', description: "List this chat's saved memories with their ids" },
  { command: 'forget', description: 'Delete a saved memory: /forget <id>' },
  { command: 'help', description: 'List the commands' },
];

/** Channels normalize their command forms (`/stop@Bot`, `@bot stop`, slash commands) to `/name args`. */
export function parseCommand(text: string): ChatCommand | undefined {
  const match = /^\/([a-zA-Z_]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const name = ALIASES[match[1]!.toLowerCase()];
  return name ? { name, args: (match[2] ?? '').trim() } : undefined;
}
