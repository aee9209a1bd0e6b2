import { describe, expect, it } from 'vitest';
import { microsToUsd, UsdAmountError, usdToMicros } from '../src/index.ts';

describe('usdToMicros', () => {
  it.each([
    ['2.5', 2_500_000],
    ['0', 0],
    ['5', 5_000_000],
    ['0.000001', 1],
    ['0.1', 100_000],
    ['0.29', 290_000],
    ['.5', 500_000],
    ['1234.567891', 1_234_567_891],
    ['007.10', 7_100_000],
    ['  3.25\n', 3_250_000],
    ['9007199254.740991', Number.MAX_SAFE_INTEGER],
  ])('converts %j exactly to %d micros', (amount, micros) => {
    expect(usdToMicros(amount)).toBe(micros);
  });

  it('never goes through floating point (0.1 + 0.2 style amounts stay exact)', () => {
    expect(usdToMicros('0.3')).toBe(300_000);
    expect(usdToMicros('1.005')).toBe(1_005_000);
    expect(usdToMicros('4.35')).toBe(4_350_000); // 4.35 * 1e6 is 4349999.999999999 in floating point
  });

  it('rejects more than 6 decimals', () => {
    expect(() => usdToMicros('0.0000001')).toThrow(UsdAmountError);
    expect(() => usdToMicros('1.1234567')).toThrow(/at most 6 decimals/);
  });

  it('rejects negatives', () => {
    expect(() => usdToMicros('-1')).toThrow(/cannot be negative/);
    expect(() => usdToMicros('-0.5')).toThrow(UsdAmountError);
  });

  it.each([
    '',
    ' ',
    '.',
    '5.',
    'abc',
    '1e6',
    '+1',
    '$5',
    '1,000',
    '1_000',
    '0x10',
    '1.2.3',
    'NaN',
    'Infinity',
  ])('rejects junk: %j', (amount) => {
    expect(() => usdToMicros(amount)).toThrow(UsdAmountError);
  });

  it('rejects amounts beyond Number.MAX_SAFE_INTEGER micros', () => {
    expect(() => usdToMicros('9007199254.740992')).toThrow(/too large/);
  });

  it('takes strings only', () => {
    expect(() => usdToMicros(2.5 as unknown as string)).toThrow(TypeError);
  });

  it('is a RangeError subclass, so generic handlers catch it', () => {
    expect(() => usdToMicros('x')).toThrow(RangeError);
  });
});

describe('microsToUsd', () => {
  it.each([
    [2_500_000, '2.50'],
    [0, '0.00'],
    [1, '0.000001'],
    [1_234_567_891, '1234.567891'],
    [100_000, '0.10'],
    [-500_000, '-0.50'],
    [5_000_000, '5.00'],
  ])('writes %d micros as %j', (micros, usd) => {
    expect(microsToUsd(micros)).toBe(usd);
  });

  it('shows as many decimals as asked, dropping only trailing zeros beyond them', () => {
    expect(microsToUsd(2_500_000, { minimumFractionDigits: 0 })).toBe('2.5');
    expect(microsToUsd(2_000_000, { minimumFractionDigits: 0 })).toBe('2');
    expect(microsToUsd(2_500_000, { minimumFractionDigits: 6 })).toBe('2.500000');
  });

  it('round-trips with usdToMicros', () => {
    for (const micros of [0, 1, 999_999, 1_000_000, 123_456_789, Number.MAX_SAFE_INTEGER]) {
      expect(usdToMicros(microsToUsd(micros))).toBe(micros);
    }
  });

  it('rejects values that are not safe integers', () => {
    expect(() => microsToUsd(1.5)).toThrow(RangeError);
    expect(() => microsToUsd(Number.NaN)).toThrow(RangeError);
    expect(() => microsToUsd(2 ** 60)).toThrow(RangeError);
    expect(() => microsToUsd(1, { minimumFractionDigits: 7 })).toThrow(RangeError);
  });
});
