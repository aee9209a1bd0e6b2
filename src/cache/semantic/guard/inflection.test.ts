import { describe, expect, it } from 'vitest';
import { comparedStems, NOUN_AND_VERB_ENDINGS, stemsPaired } from './inflection.ts';

/** The pairs a check is asked about, to see which stems stemsPaired tries. */
function asked(word: string, other: string, endings?: ReadonlySet<string>): string[] {
  const seen: string[] = [];
  stemsPaired(
    word,
    other,
    (stem, them) => {
      seen.push(`${stem}/${them}`);
      return false;
    },
    endings,
  );
  return seen;
}

describe('stemsPaired', () => {
  it.each([
    ['managers', 'bosses', 'manager/boss'],
    ['stores', 'keeps', 'store/keep'],
    ['cities', 'towns', 'city/town'],
    ['stopped', 'halted', 'stop/halt'],
    ['renovating', 'remodeling', 'renovate/remodel'],
    ['thickest', 'thinnest', 'thick/thin'],
    ['happier', 'sadder', 'happy/sad'],
    ['quickly', 'slowly', 'quick/slow'],
  ])('reads %s / %s through their stems (%s among them)', (word, other, pair) => {
    expect(asked(word, other)).toContain(pair);
  });

  it('reads nothing without an ending both share, nor two equal stems', () => {
    expect(asked('stores', 'keep')).toEqual([]);
    expect(asked('thick', 'thinnest')).toEqual([]);
    expect(asked('runs', 'runs')).toEqual([]);
  });

  it('keeps to the endings it is given', () => {
    expect(asked('thickest', 'thinnest', NOUN_AND_VERB_ENDINGS)).toEqual([]);
    expect(asked('managers', 'bosses', NOUN_AND_VERB_ENDINGS)).toContain('manager/boss');
  });

  it('answers true as soon as one pair of stems holds', () => {
    expect(stemsPaired('thickest', 'thinnest', (stem, them) => stem === 'thick' && them === 'thin')).toBe(
      true,
    );
    expect(stemsPaired('thickest', 'thinnest', () => false)).toBe(false);
  });
});

describe('comparedStems', () => {
  it.each([
    ['cheaper', 'er', 'cheap'],
    ['sturdiest', 'est', 'sturdy'],
    ['biggest', 'est', 'big'],
    ['nicer', 'er', 'nice'],
  ])('reads %s as "-%s" of %s (among its stems)', (word, ending, stem) => {
    expect(comparedStems(word)?.ending).toBe(ending);
    expect(comparedStems(word)?.stems).toContain(stem);
  });

  it('reads no stem of one letter or none, nor a word without the endings', () => {
    expect(comparedStems('her')).toBeUndefined();
    expect(comparedStems('best')).toBeUndefined();
    expect(comparedStems('quiet')).toBeUndefined();
  });
});
