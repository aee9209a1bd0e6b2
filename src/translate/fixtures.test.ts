import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The naming rule of FIXTURES.md: `<scenario>.<kind>.json` or `<scenario>.chunks.txt`. */
const FIXTURE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*\.(?:(?:request|response|error)\.json|chunks\.txt)$/;

const translateDirectory = new URL('./', import.meta.url);
const folders = readdirSync(translateDirectory, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .filter((folder) => readdirSync(new URL(`${folder}/`, translateDirectory)).includes('__fixtures__'));

/** The fixture names FIXTURES.md lists under each `### <folder>` heading. */
function documentedFixtures(): Map<string, string[]> {
  const listed = new Map<string, string[]>();
  let folder: string | undefined;
  for (const line of readFileSync(new URL('FIXTURES.md', translateDirectory), 'utf8').split('\n')) {
    const heading = /^### ([a-z0-9-]+)/.exec(line);
    if (heading !== null) {
      folder = heading[1]!;
      listed.set(folder, []);
      continue;
    }
    const row = /^\| `([^`]+)`\s*\|/.exec(line);
    if (row !== null && folder !== undefined) listed.get(folder)!.push(row[1]!);
  }
  return listed;
}

describe('translator fixtures', () => {
  it('exist in every translator folder that has a __fixtures__ folder', () => {
    expect(folders.length).toBeGreaterThan(0);
  });

  it.each(folders)('%s: every fixture follows the naming rule', (folder) => {
    const names = readdirSync(new URL(`${folder}/__fixtures__/`, translateDirectory));
    expect(names.filter((name) => !FIXTURE_NAME.test(name))).toEqual([]);
  });

  it.each(folders)('%s: FIXTURES.md lists exactly the fixtures in the folder', (folder) => {
    const names = readdirSync(new URL(`${folder}/__fixtures__/`, translateDirectory)).sort();
    expect([...(documentedFixtures().get(folder) ?? [])].sort()).toEqual(names);
  });
});
