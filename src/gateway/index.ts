export { createHttpServer, MAX_BODY_BYTES, type HealthChecks } from './http-server.js';
export { createInboundHandler, type InboundChatSettings, type InboundHandlerOptions } from './inbound-handler.js';
export { createChatMembershipHandler, type ChatMembershipHandlerOptions } from './membership-handler.js';
export { ADMIN_PREFIX, registerAdminScope, type AdminCredentials } from './admin-scope.js';
export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
export { AdminLoginGuard, DEFAULT_LOGIN_POLICY, type LoginPolicy } from './admin-login-guard.js';
export { MemoryLoginFailures, RedisLoginFailures, type LoginFailureStore } from '../redis/admin-login-failures.js';
