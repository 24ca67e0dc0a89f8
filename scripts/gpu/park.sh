#!/usr/bin/env bash
# Moves the tracked files a GPU session does not need out of the working tree and back, so that
# what the device tool carries stays under its 64 MiB (docs/gpu-machine.md, section 2). The
# stored study results (bench/results) and the CPU corpus (data/corpus) outgrew that limit with
# the tree; nothing the device runs reads them.
#
# Usage: scripts/gpu/park.sh out    move them to build/parked/ (ignored by git, never carried)
#        scripts/gpu/park.sh back   move them back
#        scripts/gpu/park.sh size   print what would travel now (tracked + untracked, not ignored)
# While parked, `git status` shows them deleted: move them back before committing.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
parked=build/parked
folders=(bench/results data/corpus)

travelling_bytes() {
  { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    while IFS= read -r -d '' f; do [[ -f $f ]] && printf '%s\0' "$f"; done |
    du -cb --files0-from=- | tail -1 | cut -f1
}

case "${1:-}" in
  out)
    if [[ -d $parked ]] && [[ -n $(ls -A "$parked") ]]; then
      echo "park.sh: $parked is not empty: run 'scripts/gpu/park.sh back' first" >&2
      exit 1
    fi
    mkdir -p "$parked"
    count=0
    while IFS= read -r -d '' f; do
      [[ -f $f ]] || continue
      mkdir -p "$parked/$(dirname "$f")"
      mv "$f" "$parked/$f"
      count=$((count + 1))
    done < <(git ls-files -z -- "${folders[@]}")
    echo "park.sh: moved $count files to $parked; $(( $(travelling_bytes) / 1048576 )) MiB travel now" \
         "(limit 64 MiB with the carried paths)"
    ;;
  back)
    if [[ ! -d $parked ]]; then
      echo "park.sh: nothing parked" >&2
      exit 0
    fi
    count=0
    while IFS= read -r -d '' f; do
      target=${f#"$parked"/}
      mkdir -p "$(dirname "$target")"
      mv "$f" "$target"
      count=$((count + 1))
    done < <(find "$parked" -type f -print0)
    rm -rf "$parked"
    echo "park.sh: moved $count files back"
    ;;
  size)
    echo "park.sh: $(( $(travelling_bytes) / 1048576 )) MiB travel now (limit 64 MiB with the" \
         "carried paths)"
    ;;
  *)
    echo "park.sh: say out, back or size (got '${1:-}')" >&2
    exit 2
    ;;
esac
