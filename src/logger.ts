// Structured JSON logs (pino). Secrets never reach them: authorization headers are not logged.
import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'spanledger' }, timestamp: pino.stdTimeFunctions.isoTime });
}
