/**
 * `npm run codegen -w @inference-gateway/admin` (plain `node`, from the package folder):
 *
 *   node scripts/codegen.ts                     regenerate src/generated/ from the committed
 *                                               schema snapshots and the documents
 *   node scripts/codegen.ts --url <control URL> first refresh the snapshots from a running control
 *                                               plane by introspection, then regenerate
 *   node scripts/codegen.ts --check             write nothing; exit 1 when a file is out of date
 *
 * With --url, the PATs come from `--bootstrap <file>` (standalone's BOOTSTRAP_FILE: its `pat` and
 * `adminPat`) or from IGW_PAT and IGW_ADMIN_PAT; never from the command line, where every process
 * listing would show them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateTypes, introspectSchemas, normaliseSdl, SCHEMAS, type SchemaTexts } from './generate.ts';

const PACKAGE = dirname(import.meta.dirname);

interface Tokens {
  token: string;
  adminToken: string;
}

async function tokensFrom(bootstrap: string | undefined): Promise<Tokens> {
  if (bootstrap !== undefined) {
    const file = JSON.parse(await readFile(bootstrap, 'utf8')) as { pat?: unknown; adminPat?: unknown };
    if (typeof file.pat !== 'string' || typeof file.adminPat !== 'string') {
      throw new Error(`${bootstrap} holds no pat and adminPat`);
    }
    return { token: file.pat, adminToken: file.adminPat };
  }
  const token = process.env.IGW_PAT;
  const adminToken = process.env.IGW_ADMIN_PAT;
  if (!token || !adminToken) throw new Error('--url needs --bootstrap <file>, or IGW_PAT and IGW_ADMIN_PAT');
  return { token, adminToken };
}

async function readSnapshots(): Promise<SchemaTexts> {
  const entries = await Promise.all(
    SCHEMAS.map(async (schema) => [schema.name, await readFile(join(PACKAGE, schema.snapshot), 'utf8')]),
  );
  return Object.fromEntries(entries) as SchemaTexts;
}

/** Whether a file already says what `text` says (a snapshot: the same schema, in any layout). */
function same(path: string, current: string | undefined, text: string): boolean {
  if (current === undefined) return false;
  if (!path.endsWith('.graphql')) return current === text;
  try {
    return normaliseSdl(current) === normaliseSdl(text);
  } catch {
    return false;
  }
}

/** Writes (or with `check`, compares) each file; returns the paths that differed. */
async function sync(files: Record<string, string>, check: boolean): Promise<string[]> {
  const stale: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const current = await readFile(join(PACKAGE, path), 'utf8').catch(() => undefined);
    if (same(path, current, text)) continue;
    stale.push(path);
    if (!check) await writeFile(join(PACKAGE, path), text);
  }
  return stale;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      bootstrap: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
  });
  const check = values.check === true;
  const files: Record<string, string> = {};
  let schemas: SchemaTexts;
  if (values.url !== undefined) {
    schemas = await introspectSchemas({ url: values.url, ...(await tokensFrom(values.bootstrap)) });
    for (const schema of SCHEMAS) files[schema.snapshot] = schemas[schema.name];
  } else {
    schemas = await readSnapshots();
  }
  Object.assign(files, await generateTypes(schemas));
  const stale = await sync(files, check);
  for (const path of stale) console.log(`${check ? 'out of date' : 'wrote'}: ${path}`);
  if (stale.length === 0) console.log('up to date');
  return check && stale.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
