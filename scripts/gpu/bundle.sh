#!/usr/bin/env bash
# Packs what must run on a lent GPU machine (docs/gpu-machine.md) into one folder that the device
# tool can carry (64 MiB in all, the working tree included): the GPU worker, the CUDA test binary
# and its fake drivers, optionally the glimpse CLI, stripped, plus every shared library they need
# that a plain system with the CUDA toolkit lacks (ldd decides), and run-tests.sh, which runs the
# tests there. It then checks the bundle's size and that its test binary starts and passes (GPU
# tests skipped) under `env -i` with only the bundle's own library folder.
#
# Usage: scripts/gpu/bundle.sh [--build-dir DIR] [--out DIR] [--with-cli] [--max-mib N]
#   --build-dir  a configured build folder (default build/cuda-run); the needed targets are built
#                (relative paths are taken from the repository root)
#   --out        the bundle (default build/gpu-bundle; emptied first)
#   --with-cli   also bundle the glimpse command line (target glimpse_lite: every command but
#                `glimpse train`, without libtorch) as bin/glimpse, and glimpse.sh, which runs it
#                with the bundle's libraries and worker (builds every library: slow on 2 cores)
#   --max-mib    refuse a bundle larger than this (default 40, leaving room for the tree)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=build/cuda-run
out=build/gpu-bundle
with_cli=0
max_mib=40
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --with-cli) with_cli=1; shift ;;
    --max-mib) max_mib=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bundle.sh: unknown argument '$1'; known: --build-dir, --out, --with-cli, --max-mib" >&2
       exit 2 ;;
  esac
done
cd "$repo"
if [[ ! -f "$build_dir/build.ninja" && ! -f "$build_dir/Makefile" ]]; then
  echo "bundle.sh: $build_dir is not a configured build folder; configure it with" >&2
  echo "  cmake -S . -B $build_dir -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo" >&2
  exit 2
fi

targets=(glimpse_gpu_worker glimpse_cuda_tests glimpse_fake_libcuda glimpse_fake_gpu)
targets+=(gpu_peak)  # the FP32 peak for scripts/gpu/run_baselines.sh
[[ $with_cli == 1 ]] && targets+=(glimpse_lite)
nice -n 10 cmake --build "$build_dir" -j2 --target "${targets[@]}"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/lib/fallback"
binaries=("$build_dir/glimpse_gpu_worker" "$build_dir/tests/glimpse_cuda_tests")
binaries+=("$build_dir/bench/gpu_peak")
[[ $with_cli == 1 ]] && binaries+=("$build_dir/glimpse_lite")
for binary in "${binaries[@]}"; do
  name=$(basename "$binary")
  [[ $name == glimpse_lite ]] && name=glimpse
  strip -o "$out/bin/$name" "$binary"
done
strip -o "$out/lib/libglimpse_fake_libcuda.so" "$build_dir/tests/libglimpse_fake_libcuda.so"
strip -o "$out/lib/libglimpse_fake_gpu.so" "$build_dir/tests/libglimpse_fake_gpu.so"

# Libraries: glibc's are on every system, and the driver (libcuda) and NVRTC come with the GPU
# machine's CUDA installation (NVRTC alone is over 100 MiB). libstdc++ and libgcc_s are on every
# system too, but perhaps older than this compiler's: they go to lib/fallback, which run-tests.sh
# uses only when the system's copies cannot load the binaries. Everything else is copied.
for binary in "${binaries[@]}"; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case "$name" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*) ;;
    libcuda.so*|libnvrtc*) ;;
    libstdc++.so*|libgcc_s.so*) cp -L "$path" "$out/lib/fallback/$name" ;;
    *) cp -L "$path" "$out/lib/$name" ;;
  esac
done

cat > "$out/run-tests.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the CUDA tests from this bundle (made by scripts/gpu/bundle.sh); arguments go to the test
# binary (--gtest_filter=…). Finds NVRTC in the CUDA installation or PyTorch's wheels.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libs=$here/lib
nvrtc=""
for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -e $dir/libnvrtc.so.13 ]] && { nvrtc=$dir; break; }
done
if [[ -z $nvrtc ]] && ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvrtc.so.13 '; then
  found=$(find / -xdev -name 'libnvrtc.so.13' -not -path '*/proc/*' 2>/dev/null | head -1)
  [[ -n $found ]] && nvrtc=$(dirname "$found")
fi
[[ -n $nvrtc ]] && libs=$libs:$nvrtc
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The system's libstdc++ first; this compiler's only if the system's is too old for the binaries.
if ! "$here/bin/glimpse_gpu_worker" --help </dev/null >/dev/null 2>&1 ||
   ! "$here/bin/glimpse_cuda_tests" --gtest_list_tests >/dev/null 2>&1; then
  export LD_LIBRARY_PATH=$here/lib/fallback:$LD_LIBRARY_PATH
fi
export GLIMPSE_GPU_WORKER=$here/bin/glimpse_gpu_worker
export GLIMPSE_FAKE_CUDA_DRIVER=$here/lib/libglimpse_fake_libcuda.so
export GLIMPSE_FAKE_GPU_DRIVER=$here/lib/libglimpse_fake_gpu.so
echo "run-tests.sh: LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >&2
exec "$here/bin/glimpse_cuda_tests" "$@"
EOF
chmod +x "$out/run-tests.sh"

if [[ $with_cli == 1 ]]; then
  cat > "$out/glimpse.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the bundled glimpse command line (made by scripts/gpu/bundle.sh --with-cli) with the
# bundle's libraries, NVRTC from the CUDA installation and the bundled GPU worker; arguments go to
# glimpse. GLIMPSE_DATA_DIR defaults to ./data (run it from the repository root).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libs=$here/lib
for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -e $dir/libnvrtc.so.13 ]] && { libs=$libs:$dir; break; }
done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! "$here/bin/glimpse" --version >/dev/null 2>&1; then
  export LD_LIBRARY_PATH=$here/lib/fallback:$LD_LIBRARY_PATH
fi
export GLIMPSE_GPU_WORKER=${GLIMPSE_GPU_WORKER:-$here/bin/glimpse_gpu_worker}
export GLIMPSE_DATA_DIR=${GLIMPSE_DATA_DIR:-$PWD/data}
exec "$here/bin/glimpse" "$@"
EOF
  chmod +x "$out/glimpse.sh"
fi

bytes=$(du -sb "$out" | cut -f1)
mib=$(( (bytes + (1 << 20) - 1) >> 20 ))
echo "bundle.sh: $out is $mib MiB ($bytes bytes):"
(cd "$out" && find . -type f -printf '  %p %s\n' | sort)
if (( mib > max_mib )); then
  echo "bundle.sh: $out is $mib MiB, over the $max_mib MiB allowed" >&2
  exit 1
fi

# The bundle must stand alone: no environment, no build folder. On this machine (no GPU) every
# test passes or skips; the device tests skip with "no CUDA device: …".
log=$(mktemp)
if ! env -i /bin/bash "$out/run-tests.sh" --gtest_brief=1 >"$log" 2>&1; then
  cat "$log" >&2
  echo "bundle.sh: the bundled tests failed under env -i" >&2
  exit 1
fi
tail -n 3 "$log"
rm -f "$log"
hello=$(env -i LD_LIBRARY_PATH="$out/lib" GLIMPSE_CUDA_DRIVER=/nonexistent/libcuda.so.1 \
          "$out/bin/glimpse_gpu_worker" </dev/null)
case "$hello" in
  *'"ready":false'*'no CUDA device'*|*'no CUDA device'*'"ready":false'*) ;;
  *) echo "bundle.sh: the bundled worker said '$hello' without a driver" >&2; exit 1 ;;
esac
peak_rc=0
# gpu_peak links NVRTC (from /usr/local/cuda, as run-tests.sh finds it).
peak_says=$(env -i LD_LIBRARY_PATH="$out/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib" \
              GLIMPSE_CUDA_DRIVER=/nonexistent/libcuda.so.1 "$out/bin/gpu_peak" 2>&1) || peak_rc=$?
if [[ $peak_rc != 2 || $peak_says != *'no CUDA device'* ]]; then
  echo "bundle.sh: the bundled gpu_peak said '$peak_says' (exit $peak_rc) without a driver" >&2
  exit 1
fi
if [[ $with_cli == 1 ]]; then
  # The bundled command line starts with nothing but the bundle's libraries (and NVRTC, which
  # glimpse.sh finds in /usr/local/cuda) and, without a driver, refuses to tune with one line.
  said=$(env -i GLIMPSE_CUDA_DRIVER=/nonexistent/libcuda.so.1 /bin/bash "$out/glimpse.sh" tune \
           --target cuda --op dense:M=1,N=8,K=8 --no-db 2>&1 >/dev/null) && code=0 || code=$?
  if [[ $code != 2 || $said != "glimpse: error: no CUDA device: "* ]]; then
    echo "bundle.sh: the bundled glimpse said '$said' (exit $code) without a driver" >&2
    exit 1
  fi
  echo "bundle.sh: bundled glimpse without a driver: $said"
  # The Glimpse tuner is in it, its models read from the tree's data/models without libtorch: a
  # short replay of a recorded space must use the shipped prior, not fall back.
  replay=$(env -i PATH=/usr/bin:/bin /bin/bash "$out/glimpse.sh" tune \
             --space data/recorded/pnpoly/RTX_3090.json.gz --tuner glimpse --budget 16 --no-db \
             --json --progress quiet 2>&1) && code=0 || code=$?
  if [[ $code != 0 || $replay != *'"prior: '*'data/models/prior.json"'* ]]; then
    echo "bundle.sh: the bundled glimpse did not tune with the Glimpse tuner's shipped prior" \
         "(exit $code):" >&2
    echo "$replay" | tail -20 >&2
    exit 1
  fi
  echo "bundle.sh: bundled glimpse replays with the Glimpse tuner and its shipped models"
fi
echo "bundle.sh: ok — carry $out to the GPU machine (docs/gpu-machine.md)"
