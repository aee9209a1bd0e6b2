/** Arguments several tools share. */
import { z } from 'zod';

/** A workspace the call is about; the bootstrap workspace `default` when left out. */
export const workspaceIdArgument = z
  .string()
  .default('default')
  .describe('The workspace id (default: "default").');
