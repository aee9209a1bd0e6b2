import { describe, expect, it } from 'vitest';
import { PublishedRecords } from './published-records.ts';

describe('PublishedRecords', () => {
  it('releases a record only for its current owner', () => {
    const published = new PublishedRecords();
    published.claim('CachePolicy/ns/b', 'cachePolicy', 't/*/default');
    // The older object takes the id over; the loser can no longer delete it.
    published.claim('CachePolicy/ns/a', 'cachePolicy', 't/*/default');
    expect(published.release('CachePolicy/ns/b', 'cachePolicy', 't/*/default')).toBe(false);
    expect(published.owned('CachePolicy/ns/b')).toEqual([]);
    expect(published.ownerOf('cachePolicy', 't/*/default')).toBe('CachePolicy/ns/a');
    expect(published.release('CachePolicy/ns/a', 'cachePolicy', 't/*/default')).toBe(true);
    expect(published.ownerOf('cachePolicy', 't/*/default')).toBeUndefined();
  });

  it('lists an owner’s records dependants first, and owners by prefix', () => {
    const published = new PublishedRecords();
    published.replaceAll([
      ['Tenant//t', 'tenant', 't'],
      ['Tenant//t', 'apiKey', 'k1'],
      ['Tenant//t', 'pat', 'p1'],
      ['Connection/tenant-t/c', 'connection', 't/c'],
    ]);
    expect(published.owned('Tenant//t').map((slot) => slot.kind)).toEqual(['pat', 'apiKey', 'tenant']);
    expect(published.ownersWithPrefix('Connection/tenant-t/')).toEqual(['Connection/tenant-t/c']);
  });
});
