#!/usr/bin/env bash
# tools/h200-carry-build.sh -- a prebuilt build/ for a device call (the H200 has the same CUDA 13.0
# toolkit; the host libraries are linked statically): binaries, libraries, problem objects and
# their reference hashes, in .h200-carry/build.txz (about 14 MB; the carry limit is 64 MiB with the tree). On the
# device, before tools/h200-run.sh:
#     tar xf .h200-carry/build.txz && find build -type f -exec touch -d "@$(date +%s)" {} +
# (touched newer than the copied sources, all at one time, so make rebuilds nothing: it saves the
# ~100 s build).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .h200-carry
make -j"$(nproc)" build build/tests/check_problems build/tests/gpu/test_generators build/tests/gpu/test_timer build/lib/libkb-kerneltrace.so build/bin/kb-bench-ipc-write build/tests/test_sandbox \
    > /tmp/h200-carry-build.log 2>&1 || { tail -20 /tmp/h200-carry-build.log; exit 1; }
# staged with the debug info stripped (the carry limit counts the working tree too)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -a --parents build/bin build/lib build/problems build/obj build/refhash \
    build/tests/check_problems build/tests/test_sandbox build/tests/gpu build/REVISION "$stage/"
# the objects' dependency files without the headers outside the repository: they name this
# machine's system and -dev headers (/usr/include/hdf5/serial/..., gcc's own), which the device
# lacks or has elsewhere, and a missing one makes make there rebuild every object and relink
# every tool with another compiler (new content hashes: every carried artifact and compile record
# looked stale, session 10)
find "$stage/build/obj" -name '*.d' -exec sed -i -E 's#(^| )/[^ ]+# #g' {} +
# the knob stamps and the tools' content hashes (not the model checks): without them make there
# writes them new, newer than every carried compile record, and recompiles every carried sample
# (session 10's s14 call); carried, a hash is rewritten only if a binary's code differs there
find build/stamps -maxdepth 2 \( -name '*.stamp' -o -name '*.sha' \) ! -path '*/models/*' -exec cp -a --parents {} "$stage/" \;
# CARRY_SUBS='demo-naive ...': those models' compiled samples too (make compile MODEL=m first)
for m in ${CARRY_SUBS:-}; do cp -a --parents "build/sub/$m" "$stage/"; done
find "$stage/build/bin" "$stage/build/lib" "$stage/build/tests" -type f \( -perm -u+x -o -name '*.so' \) \
    -exec strip --strip-debug {} + 2>/dev/null || true
find "$stage/build" -type f -exec touch {} + # newer than the sources, as the unstripped ones were
tar cf - -C "$stage" build | xz -T0 -6 > .h200-carry/build.txz # xz: the fatbins in lib/ and obj/ are alike (33 MB as gzip, 14 as xz)
ls -la .h200-carry/build.txz
