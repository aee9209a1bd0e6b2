/**
 * The admin SDK (packages/admin) against the live schema of the real standalone service: both
 * schemas, introspected over HTTP, equal the SDK's committed snapshots; every document of the SDK
 * validates against them and together they cover every query and mutation; and the generator, run
 * in memory on the live schemas, makes exactly the committed generated types. A server change to
 * either schema, or a document edited without `npm run codegen -w @inference-gateway/admin`, fails
 * here with the file to refresh.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, type GraphQLSchema, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateTypes,
  introspectSchemas,
  normaliseSdl,
  SCHEMAS,
  type SchemaTexts,
} from '../../../packages/admin/scripts/generate.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const PACKAGE = join(import.meta.dirname, '../../../packages/admin');
const REFRESH =
  'the server schema changed: run `npm run codegen -w @inference-gateway/admin -- --url <control URL> --bootstrap <bootstrap.json>` and review the SDK';

let gateway: TestGateway;
let live: SchemaTexts;

beforeAll(async () => {
  gateway = await startTestGateway();
  live = await introspectSchemas({
    url: gateway.controlUrl,
    token: gateway.credentials.pat,
    adminToken: gateway.credentials.adminPat,
  });
});

afterAll(async () => {
  await gateway?.stop();
});

/** Every root field of a schema, as `query.name` / `mutation.name`. */
function rootFields(schema: GraphQLSchema): string[] {
  return [
    ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((name) => `query.${name}`),
    ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((name) => `mutation.${name}`),
  ].sort();
}

describe.each(SCHEMAS)('the admin SDK against the live $path', (schema) => {
  it('has a snapshot equal to the schema the server introspects', () => {
    const committed = normaliseSdl(readFileSync(join(PACKAGE, schema.snapshot), 'utf8'));
    expect(live[schema.name], REFRESH).toBe(committed);
  });

  it('has documents that all validate against the live schema', () => {
    const liveSchema = buildSchema(live[schema.name]);
    for (const document of schema.documents) {
      const errors = validate(liveSchema, parse(document.query)).map((error) => error.message);
      expect(errors, document.operationName).toEqual([]);
    }
  });

  it('has a document for every query and mutation of the live schema', () => {
    const covered = schema.documents.map((document) => `${document.kind}.${document.rootField}`).sort();
    expect(covered).toEqual(rootFields(buildSchema(live[schema.name])));
  });
});

describe('the admin SDK generated types', () => {
  it('are exactly what codegen makes of the live schemas and the documents', async () => {
    const files = await generateTypes(live);
    for (const [path, text] of Object.entries(files)) {
      expect(text, `${path}: ${REFRESH}`).toBe(readFileSync(join(PACKAGE, path), 'utf8'));
    }
  });
});
