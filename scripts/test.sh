#!/usr/bin/env bash
# The test command (`npm test`): every project, or one: `npm test -- unit`, `npm test -- integration`,
# `npm test -- fuzz`, or a package's (`npm test -- client`, admin, cli, mcp); anything after that
# goes to vitest (a file filter, -t 'name', ...).
set -euo pipefail
case "${1:-}" in
  unit | integration | fuzz | client | admin | cli | mcp) project="$1"; shift; exec npx vitest run --project "$project" "$@" ;;
  *) exec npx vitest run "$@" ;;
esac
