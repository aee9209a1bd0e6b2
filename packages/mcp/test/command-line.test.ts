import { describe, expect, it } from 'vitest';
import { parseCommandLine, USAGE } from '../src/command-line.ts';

describe('parseCommandLine', () => {
  it('serves without arguments', () => {
    expect(parseCommandLine([])).toEqual({ action: 'serve' });
  });

  it('answers --help and --version (short forms too), help first', () => {
    expect(parseCommandLine(['--help'])).toEqual({ action: 'help' });
    expect(parseCommandLine(['-h'])).toEqual({ action: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ action: 'version' });
    expect(parseCommandLine(['-V'])).toEqual({ action: 'version' });
    expect(parseCommandLine(['--version', '--help'])).toEqual({ action: 'help' });
  });

  it('refuses any other argument without repeating it', () => {
    const refused = parseCommandLine(['tt_pat_pasted-here-by-mistake']);
    expect(refused).toMatchObject({
      action: 'refuse',
      message: expect.stringMatching(/^unexpected argument: /),
    });
    expect(JSON.stringify(refused)).not.toContain('pasted');
    expect(parseCommandLine(['--verison', 'x'])).toMatchObject({
      action: 'refuse',
      message: expect.stringMatching(/^unexpected arguments: igw-mcp takes only --help and --version/),
    });
  });
});

describe('USAGE', () => {
  it('names every variable the server reads, and the options', () => {
    for (const text of [
      'IGW_URL',
      'IGW_TOKEN',
      'IGW_ADMIN_TOKEN',
      'IGW_PROVISIONING_KEY',
      'IGW_TIMEOUT_MS',
      '--help',
      '--version',
    ]) {
      expect(USAGE).toContain(text);
    }
  });
});
