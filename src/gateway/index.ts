export { createHttpServer, MAX_BODY_BYTES, type HealthChecks } from './http-server.js';
export { createInboundHandler, type InboundChatSettings, type InboundHandlerOptions } from './inbound-handler.js';
