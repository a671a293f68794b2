#!/usr/bin/env bash
# Installs what wgcompute needs to build and run on Debian or Ubuntu:
#   - a C compiler (the WebGPU binding links wgpu-native through cgo);
#   - Mesa's software drivers when no Vulkan / EGL driver is installed, so
#     every kernel runs on the CPU: lavapipe (Vulkan) and llvmpipe (GL).
# On a machine that already has a GPU driver (Vulkan ICD and EGL vendor
# files present) it installs no drivers and changes nothing.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

need=()
icd_present() { compgen -G '/usr/share/vulkan/icd.d/*.json' >/dev/null || compgen -G '/etc/vulkan/icd.d/*.json' >/dev/null; }
egl_present() { compgen -G '/usr/share/glvnd/egl_vendor.d/*.json' >/dev/null || compgen -G '/etc/glvnd/egl_vendor.d/*.json' >/dev/null; }

# One listing, matched with bash: `ldconfig -p | grep -q` fails under
# pipefail when grep stops reading early.
libs=$(ldconfig -p 2>/dev/null || true)
has_lib() { [[ $libs == *"$1"* ]]; }

command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
if ! icd_present || ! has_lib libvulkan.so.1; then
  need+=(mesa-vulkan-drivers libvulkan1)
fi
if ! egl_present || ! has_lib libEGL.so.1; then
  need+=(libegl1 libegl-mesa0 libgl1-mesa-dri libgles2)
fi
# The GL backend also needs GLES: a GPU machine's driver may ship EGL only.
has_lib libGLESv2.so.2 || need+=(libgles2)

apt_install setup "${need[@]}"

if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go is missing: install Go 1.26.8 or newer (https://go.dev/dl/); a go from 1.21 on fetches 1.26.8 itself, as go.mod asks (GOTOOLCHAIN)" >&2
  exit 1
fi
