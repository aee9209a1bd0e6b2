import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { pinModel, resolveConnection } from './connection.ts';
import { resetDeprecationWarnings } from './deprecation.ts';
import { GatewayValidationError } from './errors.ts';

let warn: MockInstance<typeof console.warn>;

beforeEach(() => {
  resetDeprecationWarnings();
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterEach(() => {
  warn.mockRestore();
});

describe('resolveConnection', () => {
  it('is undefined when no Connection is named', () => {
    expect(resolveConnection({})).toBeUndefined();
  });

  it('strips a leading @', () => {
    expect(resolveConnection({ connection: '@mine' })).toBe('mine');
    expect(resolveConnection({ connection: 'mine' })).toBe('mine');
  });

  it('honours workspaceCredential, with a deprecation warning', () => {
    expect(resolveConnection({ workspaceCredential: '@older' })).toBe('older');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('`workspaceCredential` is deprecated');
  });

  it('lets connection win over workspaceCredential, warning exactly once however often', () => {
    expect(resolveConnection({ connection: 'new', workspaceCredential: 'old' })).toBe('new');
    expect(resolveConnection({ connection: '@new', workspaceCredential: '@old' })).toBe('new');
    expect(resolveConnection({ workspaceCredential: 'old' })).toBe('old');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('`connection` is also set, and wins');
  });

  it('says nothing when only connection is used', () => {
    resolveConnection({ connection: 'mine' });
    expect(warn).not.toHaveBeenCalled();
  });

  it.each(['', '@', 'Mine', 'with/slash', '@@twice', 'has space'])('refuses %j', (connection) => {
    expect(() => resolveConnection({ connection })).toThrow(GatewayValidationError);
  });

  it('names the deprecated option when its value is refused', () => {
    expect(() => resolveConnection({ workspaceCredential: 'Bad' })).toThrow(/^workspaceCredential:/);
  });
});

describe('pinModel', () => {
  it('sends an unprefixed model through the Connection', () => {
    expect(pinModel('gpt-4o', 'mine')).toBe('@mine/gpt-4o');
    expect(pinModel('claude-3-5-sonnet@20240620', 'mine')).toBe('@mine/claude-3-5-sonnet@20240620');
  });

  it('leaves provider-prefixed and Connection-prefixed models alone', () => {
    expect(pinModel('openai/gpt-4o', 'mine')).toBe('openai/gpt-4o');
    expect(pinModel('@other/gpt-4o', 'mine')).toBe('@other/gpt-4o');
    expect(pinModel('@other', 'mine')).toBe('@other');
  });

  it("uses the Connection's default model when the request names none", () => {
    expect(pinModel(undefined, 'mine')).toBe('@mine');
    expect(pinModel('', 'mine')).toBe('@mine');
  });

  it('leaves a model that is not a string alone (the gateway will say what is wrong)', () => {
    expect(pinModel(42, 'mine')).toBe(42);
  });
});
