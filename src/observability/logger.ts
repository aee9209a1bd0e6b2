import { type Logger, pino } from 'pino';

/**
 * The service logger. Secrets never reach it: authorization headers and known secret fields are
 * redacted, and callers never pass keys or bodies.
 */
export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        '*.apiKey',
        '*.secret',
        '*.token',
        '*.plaintext',
        'headers.authorization',
      ],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
