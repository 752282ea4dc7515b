#!/usr/bin/env bash
# bench-server-cpu.sh: one `sello bench` run against a fresh `sello serve
# --demo` (SQLite) whose DGII is a separate `sello dgii-sim` process, and the
# server's own CPU and peak memory from /proc (docs/benchmarks.md, "Issuing
# path back under 2 signatures").
#
#   tools/bench-server-cpu.sh BIN [DOCS] [CONCURRENCY] [PORT]
#
# sello bench --metrics-url gives the same figures from the server's own
# /metrics (docs/benchmarks.md); this script reads /proc, so it also
# measures builds that have no /metrics (to compare with older ones).
#
# BIN is a sello binary; DOCS (default 3000) and CONCURRENCY (16) go to the
# bench; PORT (18080) is the server's, PORT+1 the simulator's and PORT+2 the
# debug address (pprof). The server's and the simulator's CPU are counted
# from just before the bench's first create until the server is idle again
# (every delivery to the buyer done), so the deliveries after the last
# verdict are counted too. It prints the bench's output, then one line:
#
#   result bin=… docs=… server_ms_per_doc=… sim_ms_per_doc=… rsa_per_s=…
#     sigs_per_doc=… rsa_cpu_ms=… sigs_per_doc_cpu=… verdicts_per_s=…
#     peak_rss_mb=… reads_per_doc=… writes_per_doc=… delivered=… load=…
#
# reads_per_doc and writes_per_doc are the server's read and write system
# calls (/proc/PID/io: sockets and SQLite's files) over the same span, per
# document: a figure the machine's load does not blur.
#
# sigs_per_doc is the server's CPU per document over the CPU of one raw
# RSA-2048 signature as the bench's baseline measured it in the same run
# (its signatures/s on all cores: one costs cores ÷ rate seconds of CPU).
# On a machine shared with other work that rate falls with the load (the
# baseline shares the cores with everything else), so the script also
# times raw RSA-2048 signatures by the CPU they take (tools/rsacpu, right
# after the load): rsa_cpu_ms, and sigs_per_doc_cpu against it.
# Set PROFILE=FILE to save a CPU profile of the server from the bench's
# start, PROFILE_SECONDS long (default 40: the whole of a 3,000-document
# run here); HEAP=FILE to save a heap profile HEAP_AT seconds (default 10)
# after it; METRICS=FILE to save the server's /metrics once it is idle
# again (jobs by kind, DGII calls by service, store commits: counts per
# document).
set -euo pipefail

bin=${1:?usage: bench-server-cpu.sh BIN [DOCS] [CONCURRENCY] [PORT]}
docs=${2:-3000}
conc=${3:-16}
port=${4:-18080}
simport=$((port + 1))
dbgport=$((port + 2))
tck=$(getconf CLK_TCK)

dir=$(mktemp -d /tmp/bench-server-cpu.XXXXXX)
(cd "$(dirname "$0")" && go build -o "$dir/rsacpu" ./rsacpu)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

# cpu PID prints the process's user+system time in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# sys PID prints the process's read and write system calls so far.
sys() { awk '/^syscr/ {r = $2} /^syscw/ {w = $2} END {print r, w}' "/proc/$1/io"; }

"$bin" dgii-sim --addr "127.0.0.1:$simport" >"$dir/sim.log" 2>&1 &
sim=$!
pids+=("$sim")
"$bin" serve --demo --data "$dir/data" --addr "127.0.0.1:$port" --debug-addr "127.0.0.1:$dbgport" \
	--dgii-url "http://127.0.0.1:$simport" >"$dir/serve.out" 2>"$dir/serve.err" &
srv=$!
pids+=("$srv")
for _ in $(seq 600); do
	if curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null ||
		grep -q "listening on" "$dir/serve.out" "$dir/serve.err" 2>/dev/null; then
		break
	fi
	sleep 0.1
done
key=$(awk '$1 == "demo" && $2 == "key" && $3 == "TesteCF" {print $4}' "$dir/serve.out")
if [ -z "$key" ]; then
	echo "no demo key printed" >&2
	cat "$dir/serve.err" >&2
	exit 1
fi
sleep 1 # let the start's own work (jobs run at start) settle

srv0=$(cpu "$srv")
read -r r0 w0 < <(sys "$srv")
sim0=$(cpu "$sim")
if [ -n "${PROFILE:-}" ]; then
	curl -fsS -o "$PROFILE" "http://127.0.0.1:$dbgport/debug/pprof/profile?seconds=${PROFILE_SECONDS:-40}" &
	prof=$!
fi
if [ -n "${HEAP:-}" ]; then
	(sleep "${HEAP_AT:-10}" && curl -fsS -o "$HEAP" "http://127.0.0.1:$dbgport/debug/pprof/heap") &
	heap=$!
fi
"$bin" bench --url "http://127.0.0.1:$port" --key "$key" --docs "$docs" --concurrency "$conc" | tee "$dir/bench.out"
load=$(cut -d' ' -f1-3 /proc/loadavg)
rsacpu=$(GOMAXPROCS=1 "$dir/rsacpu")

# Idle: under 5% of a core (an idle server's job pollers and checkpointer
# take 1–2%) in a second, twice in a row (at most two minutes).
prev=$(cpu "$srv")
quiet=0
for _ in $(seq 120); do
	sleep 1
	now=$(cpu "$srv")
	if [ $(((now - prev) * 20)) -lt "$tck" ]; then
		quiet=$((quiet + 1))
		[ "$quiet" -ge 2 ] && break
	else
		quiet=0
	fi
	prev=$now
done
srv1=$(cpu "$srv")
read -r r1 w1 < <(sys "$srv")
sim1=$(cpu "$sim")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$srv/status")
if [ -n "${METRICS:-}" ]; then
	curl -fsS -o "$METRICS" "http://127.0.0.1:$dbgport/metrics" || echo "no metrics" >&2
fi
for p in ${prof:-} ${heap:-}; do
	wait "$p" || echo "no profile" >&2
done
delivered=$(sqlite3 "file:$dir/data/sello.db?mode=ro" \
	"SELECT delivery_status || ':' || count(*) FROM documents GROUP BY delivery_status" 2>/dev/null | tr '\n' ' ')

rsa=$(awk '/^raw RSA-2048 sig\/s/ {print $4}' "$dir/bench.out")
cores=$(sed -n 's/^raw RSA.*(\([0-9]*\) cores.*/\1/p' "$dir/bench.out")
vps=$(awk '$1 == "verdicts/s" {print $2}' "$dir/bench.out")
awk -v bin="$(basename "$bin")" -v docs="$docs" -v s="$((srv1 - srv0))" -v m="$((sim1 - sim0))" -v tck="$tck" \
	-v rsa="${rsa:-0}" -v cores="${cores:-1}" -v vps="${vps:-?}" -v hwm="$hwm" -v del="$delivered" -v loadavg="$load" -v rsacpu="$rsacpu" -v rd="$((r1 - r0))" -v wr="$((w1 - w0))" 'BEGIN {
	ms = s * 1000 / tck / docs
	sigs = rsa > 0 ? ms / (cores * 1000 / rsa) : 0
	printf "result bin=%s docs=%d server_ms_per_doc=%.2f sim_ms_per_doc=%.2f rsa_per_s=%s sigs_per_doc=%.2f rsa_cpu_ms=%.3f sigs_per_doc_cpu=%.2f verdicts_per_s=%s peak_rss_mb=%.0f reads_per_doc=%.1f writes_per_doc=%.1f delivered=[%s] load=%s\n",
		bin, docs, ms, m * 1000 / tck / docs, rsa, sigs, rsacpu, ms / rsacpu, vps, hwm / 1024, rd / docs, wr / docs, del, loadavg
}'
