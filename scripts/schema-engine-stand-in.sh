#!/bin/sh
# Stand-in for the native Prisma schema engine, which cannot be downloaded here; `prisma generate` never runs it.
echo "schema engine not available offline; see scripts/README" >&2
exit 1
