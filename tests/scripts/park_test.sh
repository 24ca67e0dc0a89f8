#!/usr/bin/env bash
# scripts/gpu/park.sh in a throwaway repository: `out` moves the tracked files of bench/results
# and data/corpus (and no other) into build/parked and shrinks what travels, a second `out` is
# refused, `back` restores every file byte for byte and leaves the tree clean.
# Usage: tests/scripts/park_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source_dir=$1
work=$2
fail() { echo "park_test: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/scripts/gpu" "$work/bench/results/sub" "$work/data/corpus" "$work/data/models"
cp "$source_dir/scripts/gpu/park.sh" "$work/scripts/gpu/"
cd "$work"
git init -q .
git config user.email test@example.invalid
git config user.name test
echo build/ > .gitignore
head -c 3000000 /dev/urandom > bench/results/sub/large.bin
echo "a result" > "bench/results/with space.md"
head -c 2000000 /dev/urandom > data/corpus/corpus.gz
echo "a model" > data/models/model.json
git add -A && git commit -q -m start
echo "untracked, not ignored" > bench/results/new.md
sums_before=$(sha256sum bench/results/sub/large.bin "bench/results/with space.md" data/corpus/corpus.gz)

size_before=$(scripts/gpu/park.sh size)
[[ $size_before == *"4 MiB travel now"* ]] || fail "size before parking: $size_before"
out=$(scripts/gpu/park.sh out)
[[ $out == *"moved 3 files"*"0 MiB travel now"* ]] || fail "park out said: $out"
[[ ! -e bench/results/sub/large.bin && ! -e data/corpus/corpus.gz ]] || fail "files still there"
[[ -f bench/results/new.md && -f data/models/model.json ]] || fail "an untracked or unparked file moved"
[[ -f "build/parked/bench/results/with space.md" ]] || fail "no parked copy of the spaced name"
[[ $(git status --porcelain | grep -c '^ D') == 3 ]] || fail "git status does not show 3 deletions"
if scripts/gpu/park.sh out 2>/dev/null; then fail "a second 'out' was not refused"; fi
back=$(scripts/gpu/park.sh back)
[[ $back == *"moved 3 files back"* ]] || fail "park back said: $back"
[[ ! -e build/parked ]] || fail "build/parked left behind"
sums_after=$(sha256sum bench/results/sub/large.bin "bench/results/with space.md" data/corpus/corpus.gz)
[[ $sums_before == "$sums_after" ]] || fail "a file changed on its way back"
[[ $(git status --porcelain) == "?? bench/results/new.md" ]] || fail "tree not clean: $(git status --porcelain)"
if scripts/gpu/park.sh sideways 2>/dev/null; then fail "an unknown verb was accepted"; fi
echo "park_test: ok"
