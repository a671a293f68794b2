#!/usr/bin/env bash
# The run behind bench/results/2026-11-28-h200x2-*.txt: two NVIDIA H200
# (driver 580.159.04, Vulkan), 32 CPU cores, binaries built at e31a2d3
# (go build ./bench/e2e; go test -c ./algos/{ntt,sis,poseidon2}).
export WGCOMPUTE_BACKEND=vulkan
e2e -what scaling -devices all -counts 1,all -reps 5 > scaling.txt
(cd algos/ntt && ntt.test -test.run XXX -test.bench 'NTT$|Encode' -test.benchtime 5x) > ntt.txt
(cd algos/sis && sis.test -test.run XXX -test.bench SISColumns -test.benchtime 3x) > sis.txt
(cd algos/poseidon2 && poseidon2.test -test.run XXX -test.bench 'Permute31/gnark-koalabear16/|Permute31/koalabear16/|GnarkCryptoPermute' -test.benchtime 20x) > p2.txt
