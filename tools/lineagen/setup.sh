#!/usr/bin/env bash
# Lays out the sources the generator builds against, in src/ beside this
# script: Linea's prover (crypto, maths, utils, protocol and its go.mod at
# linea-monorepo cb180134d7b7) and the gnark that prover pins (its non-test
# Go sources at c62f696e965f). Neither module is served by a module proxy.
#
#   setup.sh CLONES
#
# CLONES is a folder holding clones (bare or not) of
# github.com/Consensys/linea-monorepo and github.com/Consensys/gnark, named
# linea-monorepo and gnark; each must contain the commit above. Only Go and
# module files of gnark are taken (its repository holds large test data the
# generator does not need). git may report a missing blob elsewhere in a
# partial clone while archiving: the folders taken are whole.
set -euo pipefail
C=${1:?usage: setup.sh CLONES (a folder holding clones named linea-monorepo and gnark)}
L=$(git -C "$C/linea-monorepo" rev-parse --absolute-git-dir)
G=$(git -C "$C/gnark" rev-parse --absolute-git-dir)
D="$(cd "$(dirname "$0")" && pwd)/src"
rm -rf "$D"
mkdir -p "$D/gnark"
git --git-dir="$L" archive cb180134d7b7 prover/go.mod prover/go.sum prover/crypto prover/maths prover/utils prover/protocol | tar x -C "$D"
git --git-dir="$G" ls-tree -r c62f696e965f | awk '$4 ~ /(\.go|\.s|go\.mod|go\.sum)$/ && $4 !~ /_test\.go$/ {print $3" "$4}' |
  while read -r h p; do mkdir -p "$D/gnark/$(dirname "$p")"; git --git-dir="$G" cat-file blob "$h" > "$D/gnark/$p"; done
echo "Linea's prover in $D/prover, gnark in $D/gnark"
