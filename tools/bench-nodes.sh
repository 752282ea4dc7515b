#!/usr/bin/env bash
# bench-nodes.sh BIN NODES TENANTS LABEL: one sello bench run (DOCS, default 3000; 16 clients)
# against NODES fresh `sello serve --demo` nodes on a fresh PostgreSQL database
# (the local server, 127.0.0.1:5432; SQLITE=1 for one node on SQLite instead),
# a separate `sello dgii-sim`, TENANTS tenants (1: the demo's key; more:
# --setup-tenants), every figure from the servers' own /metrics and, on
# PostgreSQL, --db-cpu-proc postgres. PORT (default 8580) is the base of
# its ports: PORT+i node i, PORT+100+i its debug address, PORT+10 the
# simulator. Appends the bench's output to
# ./bench-nodes.txt (RUNS=FILE to change it); METRICS=FILE keeps node 1's
# /metrics at the bench's end. docs/benchmarks.md, issue 23.
set -uo pipefail
bin=$1; nodes=$2; tenants=$3; label=$4; docs=${DOCS:-3000}; port=${PORT:-8580}
db=mn_$$_$RANDOM
url="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
dir=$(mktemp -d /tmp/mn.XXXXXX)
dbargs=(--database-url "$url")
dbcpu=(--db-cpu-proc postgres); pool=(--db-max-conns 15 --jobs-db-max-conns 8)
if [ -n "${SQLITE:-}" ]; then dbargs=(); dbcpu=(); pool=(); else createdb -h 127.0.0.1 -U postgres $db; fi
pids=()
cleanup() { for p in "${pids[@]}"; do kill $p 2>/dev/null; done; for p in "${pids[@]}"; do wait $p 2>/dev/null; done; dropdb -h 127.0.0.1 -U postgres --force $db 2>/dev/null; rm -rf $dir; }
trap cleanup EXIT
$bin dgii-sim --addr 127.0.0.1:$((port+10)) >$dir/sim.log 2>&1 & sim=$!; pids+=($sim)
args=()
for i in $(seq 1 $nodes); do
  $bin serve "${dbargs[@]}" --data $dir/data --demo --dgii-url http://127.0.0.1:$((port+10)) --addr 127.0.0.1:$((port+i)) --debug-addr 127.0.0.1:$((port+100+i)) "${pool[@]}" >$dir/serve$i.out 2>$dir/serve$i.err & pids+=($!)
  for _ in $(seq 300); do curl -fsS -o /dev/null http://127.0.0.1:$((port+i))/healthz 2>/dev/null && break; sleep 0.2; done
  args+=(--url http://127.0.0.1:$((port+i)) --metrics-url http://127.0.0.1:$((port+100+i))/metrics)
done
key=$(awk '$1 == "demo" && $2 == "key" && $3 == "TesteCF" {print $4}' $dir/serve1.out)
if [ "$tenants" -gt 1 ]; then
  $bin bench --setup-tenants $tenants "${dbargs[@]}" --data $dir/data > $dir/keys 2>$dir/setup.err || { cat $dir/setup.err; exit 1; }
  who=(--keys-file $dir/keys)
else
  who=(--key $key)
fi
sleep 2
s0=$(awk '{print $14+$15}' /proc/$sim/stat)
# The bench database's own backends (the bench's --db-cpu-proc counts every
# postgres process of the machine, other work's included).
bcpu() { [ -n "${SQLITE:-}" ] && { echo 0; return; }; local t=0; for p in $(psql -h 127.0.0.1 -U postgres -d postgres -Atc "select pid from pg_stat_activity where datname = '$db'"); do v=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null); t=$((t+${v:-0})); done; echo $t; }
b0=$(bcpu)
$bin bench --docs $docs --concurrency 16 "${dbcpu[@]}" "${who[@]}" "${args[@]}" > $dir/bench.out 2>&1
rc=$?
# METRICS=FILE keeps node 1's /metrics as the bench left it.
[ -n "${METRICS:-}" ] && curl -fsS -o "$METRICS" "http://127.0.0.1:$((port+101))/metrics"
s1=$(awk '{print $14+$15}' /proc/$sim/stat)
sleep 1; b1=$(bcpu)
tck=$(getconf CLK_TCK)
if [ -n "${SQLITE:-}" ]; then outcomes=$(sqlite3 "file:$dir/data/sello.db?mode=ro" "select status||':'||delivery_status||'='||count(*) from documents group by status, delivery_status" | tr '\n' ' '); else outcomes=$(psql -h 127.0.0.1 -U postgres -d $db -Atc "select status||':'||delivery_status||'='||count(*) from documents group by status, delivery_status" | tr '\n' ' '); fi
{ echo "=== $label ${SQLITE:+sqlite }bin=$(basename $bin) nodes=$nodes tenants=$tenants rc=$rc load=$(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
  cat $dir/bench.out
  [ -z "${SQLITE:-}" ] && echo "bench db backends CPU/doc $(python3 -c "print(round(($b1-$b0)/$tck/$docs*1000,3))") ms"
  echo "simulator CPU/doc $(python3 -c "print(round(($s1-$s0)/$tck/$docs*1000,3))") ms; outcomes: $outcomes"; } | tee -a "${RUNS:-bench-nodes.txt}"
