#!/usr/bin/env bash
# check-migrations.sh: a landed migration file never changes.
#
# Every migration file (internal/*/migrations/*/*.sql) must hold exactly what
# the commit that first added it held, and no migration that ever landed may
# be gone. A change to the schema is a new numbered file, for both dialects.
# Run it from anywhere inside the repository (CI: .ci/run; make check-migrations).
# It needs the full history: a shallow clone is deepened, or the check is
# skipped with a warning if that fails.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  if ! git fetch -q --unshallow 2>/dev/null; then
    echo "check-migrations: WARNING: shallow clone and 'git fetch --unshallow' failed; migrations NOT checked" >&2
    exit 0
  fi
fi

bad=0
# Every migration file that any commit reachable from HEAD added.
while IFS= read -r f; do
  [ -n "$f" ] || continue
  first=$(git log --diff-filter=A --format=%H -- "$f" | tail -1)
  [ -n "$first" ] || continue
  if [ ! -f "$f" ]; then
    echo "check-migrations: $f landed in ${first:0:12} and is gone; a landed migration is never removed" >&2
    bad=1
    continue
  fi
  if ! git show "$first:$f" | cmp -s - "$f"; then
    echo "check-migrations: $f differs from the version that landed in ${first:0:12}:" >&2
    git show "$first:$f" | diff -u --label "$f@${first:0:12}" --label "$f" - "$f" >&2 || true
    bad=1
  fi
done < <(git log --diff-filter=A --name-only --format= -- 'internal/*/migrations/*' | sort -u)

if [ "$bad" -ne 0 ]; then
  echo "check-migrations: a landed migration file is never edited: restore it and add a new numbered migration (both dialects)" >&2
  exit 1
fi
echo "check-migrations: every landed migration is unchanged"
