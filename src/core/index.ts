export * from './chat-message.js';
export * from './inbound-message.js';
export * from './session-key.js';
export * from './errors.js';
export * from './channel.js';
export * from './channel-registry.js';
export * from './channel-state.js';
export * from './text-table.js';
