// Loaded first by `npm start` and `npm run gateway` (`node --require ./scripts/check-node.cjs
// src/main/cli.ts ...`), before Node reads any TypeScript. The service runs its .ts sources
// directly with Node's built-in type stripping, which Node 22.19 and later have: an older Node
// stops at the first .ts file with ERR_UNKNOWN_FILE_EXTENSION, which says nothing of the fix.
// So on an older Node this prints what is needed and how to get it, and exits 1. Plain CommonJS
// and old syntax on purpose: it has to run on the Node that is too old.
'use strict';

var REQUIRED = [22, 19];

// GATEWAY_TEST_NODE_VERSION stands in for the running Node's version in the tests of this check
// (test/integration/start/node-version.test.ts), for machines that have no old Node to run it on.
function runningVersion() {
  return process.env.GATEWAY_TEST_NODE_VERSION || process.versions.node;
}

function isSupported(version) {
  var parts = String(version).split('.');
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  return major > REQUIRED[0] || (major === REQUIRED[0] && minor >= REQUIRED[1]);
}

var version = runningVersion();
if (!isSupported(version)) {
  process.stderr.write(
    [
      'inference-gateway needs Node.js ' + REQUIRED.join('.') + ' or newer; this is Node ' + version + '.',
      '',
      'It runs its TypeScript sources directly, with the type stripping built into Node 22.19 and',
      'later; an older Node cannot load them (ERR_UNKNOWN_FILE_EXTENSION).',
      '',
      'To get it:',
      '  make run        installs Node 24 from the npm registry into ~/.cache/gateway-node (once)',
      '                  and starts the service with it; nothing else on the machine changes',
      '  or install Node 24 yourself (nvm install 24, or https://nodejs.org) and run npm start again',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

// Node's compile cache (the TypeScript with its types stripped, and V8's code), in the folder
// NODE_COMPILE_CACHE names or else under the system's temporary folder: from the second start on,
// the type stripper is never loaded (about 20 MB resident for the life of the process) and the
// start is quicker. Each entry is checked against its file's contents, so an edit is picked up.
var nodeModule = require('module');
if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache();
