#!/usr/bin/env bash
# bench-pinned.sh BIN [ROUNDS]: PostgreSQL on a core of its own against
# SQLite, one node (docs/benchmarks.md, issue 23, session 13).
#
# Every postgres process of the local server (127.0.0.1:5432; new backends
# inherit the postmaster's affinity) is pinned to core 1, and
# tools/bench-nodes.sh (the node, its DGII simulator and sello bench) runs
# on core 0; then the same bench on SQLite, also on core 0, core 1 idle.
# The node gets one core in both; PostgreSQL the other, as a database on a
# machine of its own would. PostgreSQL is given back every core at the end.
# Needs the right to change the postgres processes' affinity (root here).
# TENANTS (default 1) and PORT (8780) go to bench-nodes.sh; the runs are
# appended to RUNS (default ./bench-pinned.txt).
set -uo pipefail
bin=${1:?usage: bench-pinned.sh BIN [ROUNDS]}
rounds=${2:-3}
tenants=${TENANTS:-1}
runs=${RUNS:-./bench-pinned.txt}
here=$(cd "$(dirname "$0")" && pwd)
pg() { for p in $(ps -eo pid,comm | awk '$2 == "postgres" {print $1}'); do taskset -a -p -c "$1" "$p" >/dev/null; done; }
trap 'pg 0-$(($(nproc) - 1))' EXIT
for r in $(seq "$rounds"); do
	pg 1
	PORT=${PORT:-8780} RUNS=$runs taskset -c 0 "$here/bench-nodes.sh" "$bin" 1 "$tenants" "pinned postgres r$r"
	pg "0-$(($(nproc) - 1))"
	SQLITE=1 PORT=${PORT:-8780} RUNS=$runs taskset -c 0 "$here/bench-nodes.sh" "$bin" 1 "$tenants" "pinned sqlite r$r"
done
