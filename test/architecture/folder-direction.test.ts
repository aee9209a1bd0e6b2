/**
 * The direction of dependencies between the folders of src/ (STYLE.md, "Dependency direction"):
 * each folder imports only the folders its row below names, and only `upstream`, `stores`,
 * `resources` and `main` import the I/O libraries. Read from the source text like
 * import-cycles.test.ts (every `import`/`export ... from` and every `import('…')`, `import type`
 * included, tests excluded), so a type-only edge counts too: a type names what a folder knows about.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const SPECIFIER = /(?:^|\n)(\s*(?:import|export)\s[^;'"]*?from\s+['"]([^'"]+)['"])/g;
/** `import('…')`, in code or in a type (`typeof import('…')`): a dependency all the same. */
const DYNAMIC = /()\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Folder -> the folders it may import. STYLE.md's sentence fixes `main`, `gateway` (beyond the
 * foundations), `translate` and the I/O libraries; the rest is what the code needs today, each row
 * said why. The foundations (`shapes`, `sse`, `config`, `observability`, `errors`) hold wire types,
 * settings, the logger and metric helpers and the error tree, and import nothing of the domains, so
 * every folder may use them; `stores` is the contract every domain reads and writes through.
 * Widen a row only when the code cannot move instead.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  shapes: [],
  sse: [],
  config: [],
  // Reads the breaker and the journal through its own types (store-metrics.ts), not stores/billing.
  observability: [],
  // The client's error envelope in each shape, and as an SSE event inside a stream.
  errors: ['shapes', 'sse'],
  translate: ['shapes', 'sse', 'errors'],
  // Its timeouts are settings; transport failures become typed errors.
  upstream: ['config', 'errors', 'sse'],
  // The config view's 503 is a GatewayError; the breaker logs.
  stores: ['errors', 'observability'],
  // The CRD types and the resource -> record functions (desired-records.ts) name store records.
  resources: ['stores'],
  auth: ['errors', 'observability', 'shapes', 'stores'],
  cache: ['errors', 'observability', 'shapes', 'stores'],
  // Routes resolve for a principal (auth); a provider names its translators and settings; Vertex's
  // token exchange posts through upstream.
  providers: ['auth', 'config', 'errors', 'shapes', 'stores', 'translate', 'upstream'],
  // Spend per principal (auth) and per connection (providers' types), prices from settings, usage
  // analytics keyed by the cache's scope id.
  billing: ['auth', 'cache', 'config', 'errors', 'observability', 'providers', 'shapes', 'stores'],
  // Sealing, PAT permissions and key hints (auth); a span per reconcile (observability).
  operator: ['auth', 'observability', 'resources', 'stores'],
  // The API over every domain; a credential's test call goes through upstream.
  'control-plane': [
    'auth',
    'billing',
    'cache',
    'config',
    'errors',
    'observability',
    'providers',
    'resources',
    'shapes',
    'stores',
    'upstream',
  ],
  // STYLE.md's list, and the foundations.
  gateway: [
    'auth',
    'billing',
    'cache',
    'config',
    'errors',
    'observability',
    'providers',
    'shapes',
    'sse',
    'stores',
    'translate',
    'upstream',
  ],
  // `main` wires everything (STYLE.md): every other folder.
  main: [
    'auth',
    'billing',
    'cache',
    'config',
    'control-plane',
    'errors',
    'gateway',
    'observability',
    'operator',
    'providers',
    'resources',
    'shapes',
    'sse',
    'stores',
    'translate',
    'upstream',
  ],
};

/** The I/O libraries, and the only folders that may import them. */
const IO_LIBRARIES = ['undici', 'ioredis', '@kubernetes/client-node'];
const IO_FOLDERS = ['upstream', 'stores', 'resources', 'main'];

interface Import {
  /** `src/<folder>/<file>:<line>` */
  at: string;
  from: string;
  specifier: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function folderOf(path: string): string {
  return relative(SRC, path).split(sep)[0] as string;
}

function importsOf(root: string): Import[] {
  return sourceFiles(root).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(SPECIFIER), ...text.matchAll(DYNAMIC)].map((match) => {
      const offset = (match.index ?? 0) + (match[0].length - (match[1] as string).trimStart().length);
      const line = text.slice(0, offset).split('\n').length;
      return { at: `src/${relative(SRC, file)}:${line}`, from: file, specifier: match[2] as string };
    });
  });
}

/** Every import that crosses into a folder its own folder may not import, as `file:line -> folder`. */
function findWrongDirection(imports: readonly Import[], allowed: typeof ALLOWED): string[] {
  return imports.flatMap(({ at, from, specifier }) => {
    if (!specifier.startsWith('.')) return [];
    const source = folderOf(from);
    const target = folderOf(resolve(dirname(from), specifier));
    if (source === target || allowed[source]?.includes(target)) return [];
    return [
      `${at} imports ${target}/ (${specifier}); ${source}/ may import: ${allowed[source]?.join(', ') || 'nothing'}`,
    ];
  });
}

function findIoOutsideItsFolders(imports: readonly Import[]): string[] {
  return imports.flatMap(({ at, from, specifier }) => {
    const library = IO_LIBRARIES.find((name) => specifier === name || specifier.startsWith(`${name}/`));
    if (library === undefined || IO_FOLDERS.includes(folderOf(from))) return [];
    return [`${at} imports ${library}; only ${IO_FOLDERS.join(', ')} may`];
  });
}

describe('the folder direction of src/', () => {
  const imports = importsOf(SRC);

  it('has a row for every folder, naming only folders that exist', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(ALLOWED).sort()).toEqual(folders);
    expect(
      Object.values(ALLOWED)
        .flat()
        .filter((target) => !folders.includes(target)),
    ).toEqual([]);
  });

  it('imports between folders only as the table allows', () => {
    expect(findWrongDirection(imports, ALLOWED)).toEqual([]);
  });

  it('keeps the operator and the control plane away from the gateway, and translate pure', () => {
    expect(ALLOWED.operator).not.toContain('gateway');
    expect(ALLOWED['control-plane']).not.toContain('gateway');
    expect(ALLOWED.translate).toEqual(['shapes', 'sse', 'errors']);
  });

  it('imports undici, ioredis and the Kubernetes client only in upstream, stores, resources and main', () => {
    expect(findIoOutsideItsFolders(imports)).toEqual([]);
  });

  it('reports an import against the direction with its file and line (the check itself can fail)', () => {
    const from = join(SRC, 'config', 'settings.ts');
    const wrong = findWrongDirection(
      [
        { at: 'src/config/settings.ts:9', from, specifier: '../stores/memory-cache.ts' },
        { at: 'src/config/settings.ts:10', from, specifier: './redis-settings.ts' },
      ],
      ALLOWED,
    );
    expect(wrong).toEqual([
      'src/config/settings.ts:9 imports stores/ (../stores/memory-cache.ts); config/ may import: nothing',
    ]);
    const io = findIoOutsideItsFolders([
      { at: 'src/gateway/x.ts:3', from: join(SRC, 'gateway', 'x.ts'), specifier: 'undici' },
      { at: 'src/upstream/y.ts:3', from: join(SRC, 'upstream', 'y.ts'), specifier: 'undici' },
    ]);
    expect(io).toEqual(['src/gateway/x.ts:3 imports undici; only upstream, stores, resources, main may']);
  });
});
