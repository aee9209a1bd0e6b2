/**
 * No import cycle in src/, `import type` included: a cycle makes the order modules initialise in
 * depend on who imports first, and says that two modules own one thing. The graph is read from the
 * source text (every `import ... from` and `export ... from` with a relative path), so the test
 * needs no bundler and sees type-only edges that the compiled code would drop.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s+['"](\.[^'"]+)['"]/g;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Module -> the modules of src/ it imports (relative specifiers only). */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((match) => resolve(dirname(file), match[1] as string));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    indexes.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexes.has(next)) {
        visit(next);
        lowlinks.set(node, Math.min(lowlinks.get(node) as number, lowlinks.get(next) as number));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node) as number, indexes.get(next) as number));
      }
    }
    if (lowlinks.get(node) !== indexes.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return cycles;
}

describe('the module graph of src/', () => {
  it('has no import cycle, type-only imports included', () => {
    const cycles = findCycles(importGraph(SRC)).map((cycle) => cycle.map((file) => relative(SRC, file)));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
