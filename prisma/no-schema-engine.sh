#!/bin/sh
# Prisma's CLI wants its native schema engine, which cannot be downloaded here. Naming this file in
# PRISMA_SCHEMA_ENGINE_BINARY makes `prisma generate` skip the download (generation needs WASM only).
# Migrations run through the WASM engine instead: `npm run db:migrate` / `npm run db:migration -- <name>`.
echo "The native Prisma schema engine is not used in this project: use npm run db:migrate / db:migration." >&2
exit 1
