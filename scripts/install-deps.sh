#!/usr/bin/env bash
# Installs the Debian packages the firmware build and the QEMU tests need, only when they are missing;
# with the argument `fuzz`, those of the fuzz campaign instead (clang and its libFuzzer runtime).
# Idempotent: a machine that already has them does nothing.
set -euo pipefail
missing=()
if [ "${1:-}" = fuzz ]; then
    packages=(clang-14 libclang-rt-14-dev)
    command -v clang-14 >/dev/null 2>&1 || missing+=(clang-14)
    [ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || missing+=(libclang-rt-14-dev)
else
    packages=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gdb-multiarch clang-format)
    command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
    command -v qemu-system-arm >/dev/null 2>&1 || missing+=(qemu-system-arm)
    command -v gdb-multiarch >/dev/null 2>&1 || missing+=(gdb-multiarch)
    command -v clang-format >/dev/null 2>&1 || missing+=(clang-format)
    [ -f /usr/lib/arm-none-eabi/newlib/libc.a ] || [ -d /usr/lib/arm-none-eabi/newlib ] || missing+=(libnewlib-arm-none-eabi)
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "install-deps: installing ${missing[*]} (Debian, --no-install-recommends)"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: done"
