import { describe, expect, it } from 'vitest';
import { SYNONYM_GROUPS } from './synonym-groups.ts';

describe('SYNONYM_GROUPS', () => {
  it('has no word or phrase in two groups', () => {
    const groupOf = new Map<string, number>();
    const repeated: string[] = [];
    SYNONYM_GROUPS.forEach((group, index) => {
      for (const member of group) {
        if (groupOf.has(member) && groupOf.get(member) !== index) repeated.push(member);
        groupOf.set(member, index);
      }
    });
    expect(repeated).toEqual([]);
  });

  it('holds groups of two or more lowercase members, none repeated within a group', () => {
    const malformed = SYNONYM_GROUPS.filter(
      (group) =>
        group.length < 2 ||
        new Set(group).size !== group.length ||
        group.some((member) => member !== member.trim().toLowerCase() || member === ''),
    );
    expect(malformed).toEqual([]);
  });
});
