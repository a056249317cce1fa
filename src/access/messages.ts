/** What the bot says when access control answers instead of the agent. */
export const ACCESS_MESSAGES = {
  pairingCode: (code: string, expiresInMinutes: number) =>
    `Hi! I don't know you yet. Your pairing code is ${code} (valid for ${expiresInMinutes} minutes).\n` +
    `Send it to the operator of this bot; once they approve it, I will answer your messages.`,
  pairingFull: () => 'I cannot take new pairing requests right now. Please try again later.',
  rateLimited: (limit: number) =>
    `You are sending messages faster than I can answer (at most ${limit} a minute). ` +
    'Please wait a minute and send your message again.',
} as const;
