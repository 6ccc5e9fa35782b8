#!/usr/bin/env bash
# Installs the Debian packages the firmware build and the QEMU tests need, only when they are missing.
# Idempotent: a machine that already has them does nothing.
set -euo pipefail
packages=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gdb-multiarch)
missing=()
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
command -v qemu-system-arm >/dev/null 2>&1 || missing+=(qemu-system-arm)
command -v gdb-multiarch >/dev/null 2>&1 || missing+=(gdb-multiarch)
[ -f /usr/lib/arm-none-eabi/newlib/libc.a ] || [ -d /usr/lib/arm-none-eabi/newlib ] || missing+=(libnewlib-arm-none-eabi)
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
