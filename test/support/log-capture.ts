// A logger built by the service's own createLogger whose lines the test reads back, so tests
// assert on what an operator would see (levels, fields, sizes) without mocking pino.
import type { Logger } from 'pino';
import type { LogLevel } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, raw (one JSON document each). */
  raw(): string[];
  lines(): LogLine[];
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export function captureLogs(level: LogLevel = 'debug'): CapturedLogs {
  const written: string[] = [];
  // pino writes whole lines synchronously to a destination with a write method.
  const logger = createLogger(level, { write: (line: string) => void written.push(line) });
  return {
    logger,
    raw: () => written.map((line) => line.replace(/\n$/, '')),
    lines: () => written.map((line) => JSON.parse(line) as LogLine),
  };
}
