// Structured JSON logs (pino). Secrets never reach them: authorization headers are not logged.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** `destination` defaults to stdout; tests pass one they read back. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'spanledger' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}
