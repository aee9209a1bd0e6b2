import { describe, expect, it } from 'vitest';
import { formatUsd, renderError, renderFields, renderTable, sanitize } from '../src/output.ts';

describe('renderTable', () => {
  it('aligns columns two spaces apart, right-aligns amounts, trims line ends', () => {
    const rows = [
      { name: 'a', cost: '$1.00', note: '' },
      { name: 'longer', cost: '$10.50', note: 'x' },
    ];
    expect(
      renderTable(
        [
          { header: 'name', value: (row) => row.name },
          { header: 'cost', value: (row) => row.cost, align: 'right' },
          { header: 'note', value: (row) => row.note },
        ],
        rows,
      ),
    ).toBe('NAME      COST  NOTE\na        $1.00\nlonger  $10.50  x\n');
  });
});

describe('renderFields', () => {
  it('aligns labels', () => {
    expect(
      renderFields([
        ['a', '1'],
        ['long', '2'],
      ]),
    ).toBe('a     1\nlong  2\n');
  });
});

describe('formatUsd', () => {
  it('writes micros as dollars exactly', () => {
    expect(formatUsd(2_500_000)).toBe('$2.50');
    expect(formatUsd(300_000)).toBe('$0.30');
    expect(formatUsd(1)).toBe('$0.000001');
    expect(formatUsd(-500_000)).toBe('-$0.50');
    expect(formatUsd(null, 'none')).toBe('none');
    expect(formatUsd(undefined)).toBe('-');
    expect(formatUsd(0.5)).toBe('0.5 micros');
  });
});

describe('sanitize and renderError', () => {
  it('replaces control characters', () => {
    expect(sanitize('a\u001b[31mb\nc\u0007')).toBe('a [31mb c ');
  });

  it('writes one line, or a JSON document', () => {
    const report = { exitCode: 1 as const, code: 'NOT_FOUND', message: 'gone\nreally' };
    expect(renderError(report, false)).toBe('igw: gone really (NOT_FOUND)\n');
    expect(JSON.parse(renderError(report, true))).toEqual({
      error: { code: 'NOT_FOUND', message: 'gone\nreally' },
    });
  });
});
