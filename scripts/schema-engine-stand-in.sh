#!/bin/sh
# Stand-in for the native Prisma schema engine, which cannot be downloaded here; `prisma generate` never runs it.
echo "schema engine not available offline; see scripts/prisma-offline.ts and docs/development.md" >&2
exit 1
