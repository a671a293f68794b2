#!/usr/bin/env bash
# The host's top of a Merkle tree (cputop) against every level on the GPU, Rescue Root and Build 2^12..2^20.
# merkle.test built from the branch cputop at 0cfb5b4. In the log, the first number after the
# count is ns/op (end to end), and the number after "kernel-ms/op" is wall-ms/op: the sed
# below dropped the kernel-ms column.
set -u
cd .bin/ct && xz -d merkle.test.xz && chmod +x merkle.test
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc; date -u
timeout 200 ./merkle.test -test.run '^$' -test.bench 'HostTop' -test.benchtime 20x -test.count 2 2>&1 | grep Bench | sed 's/ns\/op.*kernel-ms/kernel-ms/; s/BenchmarkHostTop\///; s/\t/ /g; s/  */ /g'
