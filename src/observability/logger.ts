import { type DestinationStream, type Logger, pino } from 'pino';

/**
 * The service logger. Secrets never reach it: authorization headers and known secret fields are
 * redacted, and callers never pass keys or bodies.
 */
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  const options = {
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
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export type { Logger };
