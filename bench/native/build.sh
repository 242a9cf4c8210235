#!/usr/bin/env bash
# Builds build/rmabench_native (the MPICH baseline of rmabench) from rmabench_native.c, and
# build/copy_ceiling (this machine's memory-copy bandwidth, see copy_ceiling.c) and
# build/barrier_floor (the cheapest barrier of P processes here, see barrier_floor.c), each when the
# binary is missing or older than its source. Installs Debian's mpich and libmpich-dev first when
# the MPICH compiler or launcher is missing. Silent on success. MPICC overrides the compiler.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/rmabench_native.c"
out="$here/build/rmabench_native"
mpicc="${MPICC:-mpicc.mpich}"

if ! command -v "$mpicc" >/dev/null 2>&1 || ! command -v mpiexec.mpich >/dev/null 2>&1; then
    echo "rmabench: installing Debian's mpich and libmpich-dev for the MPICH baseline..." >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mpich libmpich-dev >/dev/null
fi

if [[ ! -x "$out" || "$src" -nt "$out" ]]; then
    mkdir -p "$here/build"
    tmp="$out.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    "$mpicc" -std=c99 -O2 -Wall -Wextra -o "$tmp" "$src" -lm
    mv -f "$tmp" "$out"
fi

ceiling="$here/build/copy_ceiling"
if [[ ! -x "$ceiling" || "$here/copy_ceiling.c" -nt "$ceiling" ]]; then
    mkdir -p "$here/build"
    tmp2="$ceiling.tmp.$$"
    trap 'rm -f "$tmp2"' EXIT
    "$mpicc" -std=c11 -O2 -Wall -Wextra -pthread -o "$tmp2" "$here/copy_ceiling.c"
    mv -f "$tmp2" "$ceiling"
fi

floor="$here/build/barrier_floor"
if [[ ! -x "$floor" || "$here/barrier_floor.c" -nt "$floor" ]]; then
    mkdir -p "$here/build"
    tmp3="$floor.tmp.$$"
    trap 'rm -f "$tmp3"' EXIT
    "$mpicc" -std=c11 -O2 -Wall -Wextra -o "$tmp3" "$here/barrier_floor.c"
    mv -f "$tmp3" "$floor"
fi
