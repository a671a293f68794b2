#!/usr/bin/env bash
# Runs docs/slurm's sbatch scripts, as docs/DISTRIBUTED.md shows them, on a
# private single-node Slurm that it starts and stops (slurmctld, slurmd and
# a munged of its own, all configured in a temporary directory, on ports
# $SLURM_TEST_PORT and the one after it, 16817 by default), and checks:
#   b3sum     an array of 7 tasks hashes the parts of a file of odd size, and
#             a combine job (afterok) prints what 'wgbench b3sum FILE' and
#             b3sum print;
#   merkle    an array of 8 tasks builds the ranges of a tree of 2^16 leaves,
#             and a combine job prints the root of the whole tree;
#   requeue   one task killed by scancel while it runs: the combine job
#             names its bytes as missing and fails, the combine that waits
#             with afterok on the array never runs, and after
#             'scontrol requeue' of that task a combine prints the whole
#             file's line.
# Each prints a PASS or FAIL line; the script fails if any failed. Every wait
# has a limit, so a Slurm that does not run jobs fails the test, and every
# process it started is stopped when it exits. It needs root (slurmd starts
# the jobs) and installs slurm-wlm and munge with apt-get where they are
# missing. It takes bin/wgbench (built when missing; WGBENCH names another
# one); jobs run on WGCOMPUTE_BACKEND, cpu unless set.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/sbin:/sbin
export WGCOMPUTE_BACKEND=${WGCOMPUTE_BACKEND:-cpu}

die() {
	echo "slurm-test: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root, to start slurmd, which runs the jobs, and slurmctld as SlurmUser=root; run it with sudo"

daemons=(munged slurmctld slurmd)
clients=(munge sbatch squeue scontrol scancel sinfo)
absent() {
	local c
	for c in "${daemons[@]}" "${clients[@]}"; do
		command -v "$c" >/dev/null 2>&1 || echo "$c"
	done
}
if [ -n "$(absent)" ]; then
	. scripts/apt-install.sh
	apt_install slurm-test slurm-wlm munge || die "cannot install slurm-wlm and munge, which provide: $(absent | xargs)"
	[ -z "$(absent)" ] || die "still missing after installing slurm-wlm and munge: $(absent | xargs)"
fi

wgbench=${WGBENCH:-bin/wgbench}
if [ ! -x "$wgbench" ]; then
	[ -z "${WGBENCH:-}" ] || die "WGBENCH=$WGBENCH is not an executable file"
	go build -o bin/wgbench ./cmd/wgbench
fi
wgbench=$(realpath "$wgbench")

ctld_port=${SLURM_TEST_PORT:-16817}
slurmd_port=$((ctld_port + 1))
for p in "$ctld_port" "$slurmd_port"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		die "port $p is taken (another Slurm?): set SLURM_TEST_PORT to a free pair of ports"
	fi
done

# munged wants every directory above its socket searchable by all.
tmp=$(mktemp -d /tmp/wgcompute-slurm.XXXXXX)
chmod 711 "$tmp"
mkdir "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/jobs" "$tmp/bin"
export SLURM_CONF=$tmp/slurm.conf
submitted=()
started=0

pids=()

# pid NAME: the pid in NAME's pid file, kept for cleanup.
pid() {
	local f=$tmp/$1.pid
	for _ in $(seq 50); do
		[ -s "$f" ] && break
		sleep 0.1
	done
	[ -s "$f" ] || die "$1 started but wrote no pid file"
	pids+=("$(cat "$f")")
}

# stop PID: waits up to 5 s for it to exit, then kills it.
stop() {
	for _ in $(seq 50); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
}

cleanup() {
	local rc=$? p f
	trap - EXIT
	if ((started)); then
		((${#submitted[@]} == 0)) || scancel "${submitted[@]}" >/dev/null 2>&1 || true
		scontrol shutdown >/dev/null 2>&1 || true
	fi
	# pids[0] is munged, which has no shutdown command of its own.
	((${#pids[@]} == 0)) || kill "${pids[0]}" 2>/dev/null || true
	for p in "${pids[@]}"; do
		stop "$p"
	done
	if ((rc != 0)); then
		echo "slurm-test: failed; the daemons' logs and the jobs' output follow" >&2
		for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/jobs/*.out; do
			[ -s "$f" ] || continue
			echo "--- ${f#"$tmp"/}" >&2
			tail -n 20 "$f" >&2
		done
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT

# The key is made afresh and never leaves $tmp: no other host shares it.
head -c 1024 /dev/urandom >"$tmp/munge/key"
chmod 400 "$tmp/munge/key"
munged --socket="$tmp/munge/socket" --key-file="$tmp/munge/key" --pid-file="$tmp/munged.pid" \
	--log-file="$tmp/munged.log" --seed-file="$tmp/munge/seed" ||
	die "munged did not start: $(tail -n 1 "$tmp/munged.log" 2>/dev/null)"
pid munged

host=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=wgcompute-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Start a batch job as soon as a CPU is free, not up to 3 s later (the
# default): the delays made the test 40 s instead of 18.
SchedulerParameters=batch_sched_delay=0
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
EOF
started=1
slurmctld || die "slurmctld did not start"
pid slurmctld
slurmd || die "slurmd did not start"
pid slurmd

# until SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds,
# or fails saying what it waited for.
until_ok() {
	local limit=$1 what=$2 end=$((SECONDS + $1))
	shift 2
	until "$@"; do
		((SECONDS < end)) || { echo "slurm-test: no $what after $limit s" >&2; return 1; }
		sleep 0.2
	done
}
node_idle() { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }
until_ok 30 "idle node in sinfo" node_idle

# submit VAR ARG...: sets VAR to the id of the job sbatch ARG... submits,
# which runs in $tmp/jobs, where its output file goes.
submit() {
	local var=$1 id
	shift
	id=$(sbatch --parsable --chdir="$tmp/jobs" "$@") || return 1
	id=${id%%;*}
	submitted+=("$id")
	printf -v "$var" %s "$id"
}

# await SECONDS JOB...: until none of the jobs is queued or running.
await() {
	local end=$((SECONDS + $1)) ids out
	shift
	ids=$(IFS=,; echo "$*")
	while :; do
		out=$(squeue -h -j "$ids" -o '%i %T %r') || { echo "slurm-test: squeue failed" >&2; return 1; }
		[ -n "$out" ] || return 0
		if ((SECONDS >= end)); then
			echo "slurm-test: still queued after $1 s:" >&2
			echo "$out" >&2
			return 1
		fi
		sleep 0.2
	done
}

# states JOB: the state of each of its tasks, one line each.
states() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
# all_completed JOB...: every task of every job completed.
all_completed() {
	local j
	for j in "$@"; do
		[ -z "$(states "$j" | grep -vx COMPLETED)" ] || { echo "slurm-test: job $j: $(states "$j" | sort | uniq -c | xargs)" >&2; return 1; }
	done
}

fails=0
pass() { echo "PASS  slurm $1"; }
fail() {
	echo "FAIL  slurm $1"
	fails=$((fails + 1))
}

ln -s "$wgbench" "$tmp/bin/wgbench"
export PATH=$tmp/bin:$PATH
data=$tmp/data
mkdir "$data" "$data/b3" "$data/merkle" "$data/b3-requeue"
file=$data/input.bin
head -c $((5 * 1024 * 1024 + 12345)) /dev/urandom >"$file"
want=$(wgbench b3sum "$file")
if command -v b3sum >/dev/null && [ "$(b3sum "$file")" != "$want" ]; then
	die "wgbench b3sum and b3sum differ on $file: $want, $(b3sum "$file")"
fi

# b3sum: the parts as an array, the combine after it.
t=$SECONDS
submit a --array=0-6 docs/slurm/b3sum-part.sbatch "$file" "$data/b3"
submit c --dependency=afterok:"$a" docs/slurm/b3sum-combine.sbatch "$file" "$data/b3"
if await 60 "$a" "$c" && all_completed "$a" "$c" && [ "$(cat "$tmp/jobs/b3sum-combine-$c.out")" = "$want" ]; then
	pass "b3sum: 7 array tasks (b3sum-part.sbatch) and the combine after them print b3sum's line for a $(stat -c %s "$file")-byte file ($((SECONDS - t)) s)"
else
	fail "b3sum: the combine job printed '$(cat "$tmp/jobs/b3sum-combine-$c.out" 2>/dev/null)', not '$want'"
fi

# merkle: the ranges as an array, the combine after it.
t=$SECONDS
leaves=$data/leaves.bin
head -c $((65536 * 32)) /dev/urandom >"$leaves"
root=$(wgbench merkle --hash blake3 --in "$leaves")
submit a --array=0-7 docs/slurm/merkle-range.sbatch "$leaves" "$data/merkle"
submit c --dependency=afterok:"$a" docs/slurm/merkle-combine.sbatch "$data/merkle"
if await 60 "$a" "$c" && all_completed "$a" "$c" && [ "$(cat "$tmp/jobs/merkle-combine-$c.out")" = "$root" ]; then
	pass "merkle: 8 array tasks (merkle-range.sbatch) and the combine after them print the root of the whole tree of 65536 leaves ($((SECONDS - t)) s)"
else
	fail "merkle: the combine job printed '$(cat "$tmp/jobs/merkle-combine-$c.out" 2>/dev/null)', not '$root'"
fi

# requeue: task 2's first attempt waits, as a long hash would, until scancel
# kills it; its requeued run (SLURM_RESTART_COUNT set) hashes.
requeue_test() {
	local dir=$data/b3-requeue shim=$tmp/shim a c never c2 lo hi
	mkdir "$shim"
	cat >"$shim/wgbench" <<EOF
#!/bin/sh
if [ "\$SLURM_ARRAY_TASK_ID" = 2 ] && [ -z "\${SLURM_RESTART_COUNT-}" ]; then
	touch "$shim/running"
	exec sleep 60
fi
exec "$wgbench" "\$@"
EOF
	chmod +x "$shim/wgbench"
	PATH=$shim:$PATH submit a --array=0-3 docs/slurm/b3sum-part.sbatch "$file" "$dir" || return 1
	submit never --dependency=afterok:"$a" docs/slurm/b3sum-combine.sbatch "$file" "$dir" || return 1
	submit c --dependency=afterany:"$a" docs/slurm/b3sum-combine.sbatch "$file" "$dir" || return 1
	until_ok 30 "start of task ${a}_2" test -e "$shim/running" || return 1
	scancel "${a}_2" || return 1
	await 60 "$a" "$c" || return 1
	[ "$(states "${a}_2")" = CANCELLED ] || { echo "slurm-test: task ${a}_2 is $(states "${a}_2"), not CANCELLED" >&2; return 1; }
	[ "$(states "$c")" = FAILED ] || { echo "slurm-test: the combine after a cancelled task is $(states "$c"), not FAILED" >&2; return 1; }
	never_satisfied() { [ "$(squeue -h -j "$never" -o %r)" = DependencyNeverSatisfied ]; }
	until_ok 30 "DependencyNeverSatisfied for the combine with afterok on the array" never_satisfied || return 1
	# slurmd refuses a job whose credential is not newer than the revocation
	# that scancel left ("Job credential revoked"), to the second: a task
	# requeued and started within the second of its cancel is killed, so
	# let a second pass first.
	sleep 2
	# A requeued task waits two minutes to start unless told otherwise.
	scontrol requeue "${a}_2" || return 1
	scontrol update JobId="${a}_2" StartTime=now || return 1
	submit c2 --dependency=afterok:"${a}_2" docs/slurm/b3sum-combine.sbatch "$file" "$dir" || return 1
	await 60 "${a}_2" "$c2" || return 1
	all_completed "$a" "$c2" || return 1
	# Slurm keeps the array's failure: afterok on it stays unsatisfiable.
	never_satisfied || { echo "slurm-test: after the requeue, the combine with afterok on the array is $(squeue -h -j "$never" -o '%T %r')" >&2; return 1; }
	scancel "$never" || return 1
	[ "$(cat "$tmp/jobs/b3sum-combine-$c2.out")" = "$want" ] || { echo "slurm-test: after the requeue, the combine printed '$(cat "$tmp/jobs/b3sum-combine-$c2.out")'" >&2; return 1; }
	# The first combine named exactly the bytes of part 2, as its records
	# (offset and length in fields 4 and 5; not the b3file line, which
	# says which file the pieces are of) now show them.
	lo=$(awk '$1 != "b3file" { print $4; exit }' "$dir/part-2.txt")
	hi=$(awk '$1 != "b3file" { end = $4 + $5 } END { print end }' "$dir/part-2.txt")
	grep -q "bytes \[$lo, $hi) of the $(stat -c %s "$file")-byte input are in no piece" "$tmp/jobs/b3sum-combine-$c.out" || {
		echo "slurm-test: the combine after the cancelled task did not name bytes [$lo, $hi):" >&2
		cat "$tmp/jobs/b3sum-combine-$c.out" >&2
		return 1
	}
}
t=$SECONDS
if requeue_test; then
	pass "requeue: a task cancelled while running leaves the combine naming its bytes as missing; after scontrol requeue the combine prints b3sum's line ($((SECONDS - t)) s)"
else
	fail "requeue: see above"
fi

((fails == 0))
