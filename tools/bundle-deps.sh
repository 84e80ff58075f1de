#!/usr/bin/env bash
# bundle-deps.sh DEST -- copy the build dependencies that are not part of the CUDA toolkit (HDF5,
# libcsv and the compressors HDF5 links against, libseccomp, cmocka) from this machine's Debian
# -dev packages into DEST/{include,lib}, for a GPU host whose image has CUDA but not these
# packages: copy DEST there and build with `make DEPS_PREFIX=DEST`. Everything host-side links
# statically except cmocka (the tests' framework, found through an rpath into DEST/lib).
# Needs: make deps (or apt-get install libhdf5-dev libcsv-dev libaec-dev zlib1g-dev
# libseccomp-dev libcmocka-dev).
set -euo pipefail
dest=${1:?usage: tools/bundle-deps.sh DEST}
h5=/usr/lib/x86_64-linux-gnu/hdf5/serial
arch=/usr/lib/x86_64-linux-gnu
need=("$h5/include/hdf5.h" "$h5/lib/libhdf5.a" /usr/include/csv.h "$arch/libcsv.a" "$arch/libsz.a" "$arch/libaec.a"
      "$arch/libz.a" /usr/include/seccomp.h "$arch/libseccomp.a" /usr/include/cmocka.h "$arch/libcmocka.so.0")
for f in "${need[@]}"; do
    [[ -e $f ]] || { echo "bundle-deps: missing $f: run 'make deps' (as root) first" >&2; exit 1; }
done
mkdir -p "$dest/include" "$dest/lib"
cp -rL "$h5/include/." "$dest/include/"
cp -L /usr/include/csv.h /usr/include/seccomp.h /usr/include/seccomp-syscalls.h /usr/include/cmocka.h "$dest/include/"
cp -L "$h5/lib/libhdf5.a" "$h5/lib/libhdf5_hl.a" "$arch/libcsv.a" "$arch/libsz.a" "$arch/libaec.a" "$arch/libz.a" \
      "$arch/libseccomp.a" "$dest/lib/"
cp -L "$arch/libcmocka.so.0" "$dest/lib/"
ln -sf libcmocka.so.0 "$dest/lib/libcmocka.so"
du -sh "$dest" | awk '{print "bundle-deps: " $1 " in " $2}'
