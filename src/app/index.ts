export { startService, type RunningService } from './start-service.js';
