// Fills Node's compile cache (NODE_COMPILE_CACHE) with every module of src/ (and of any .ts files
// named as arguments, such as bench/child-guard.ts): their TypeScript
// with the types stripped, and V8's code for them. A process whose modules are all in the cache
// never loads Node's type stripper (about 20 MB resident for the life of the process) and starts
// sooner; the sources still run as they are, this is a cache, not a build. The Dockerfile runs it
// as the user the image runs as (the cache's folder is named per user id), and `bench/` before it
// starts gateways. Node checks each entry against its file's contents, so a stale cache is only
// slower, never wrong. Run: NODE_COMPILE_CACHE=DIR node scripts/warm-compile-cache.mjs
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import module from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../src/', import.meta.url));
// The entry point runs the service when imported: it is compiled by running it with `help`.
const SKIP = new Set(['main/cli.ts']);

function modules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

if (module.enableCompileCache === undefined || module.getCompileCacheDir() === undefined) {
  process.stderr.write('warm-compile-cache: set NODE_COMPILE_CACHE to the folder to fill\n');
  process.exit(2);
}
let loaded = 0;
const extra = process.argv.slice(2).map((path) => resolve(path));
for (const path of [...modules(root), ...extra]) {
  if (SKIP.has(relative(root, path))) continue;
  // Compiling is what fills the cache; a module that throws when run outside its place (the
  // embedding worker reads its workerData) has been compiled by then.
  await import(pathToFileURL(path).href).then(
    () => loaded++,
    () => loaded++,
  );
}
module.flushCompileCache();
execFileSync(process.execPath, [join(root, 'main/cli.ts'), 'help'], { stdio: 'ignore' });
loaded++;
process.stdout.write(`warm-compile-cache: ${loaded} modules in ${module.getCompileCacheDir()}\n`);
process.exit(0);
