#!/usr/bin/env bash
# scripts/unseen-cpu.sh BIN PORT N...: server CPU seconds (utime+stime from /proc) and wall time per /vectors request of N unseen words
bin=$1; port=$2; shift 2
$bin serve --addr 127.0.0.1:$port --log-level warn 2>/dev/null &
pid=$!
for _ in $(seq 100); do curl -fs "127.0.0.1:$port/.well-known/ready" >/dev/null && break; sleep 0.1; done
tck=$(getconf CLK_TCK)
for n in "$@"; do
	{ printf '{"text":"'; for i in $(seq 1 $n); do printf 'the qx%06dvz ' $i; done; printf '"}'; } > ${TMPDIR:-/tmp}/t2vam-req$n.json
	c0=$(awk '{print $14+$15}' /proc/$pid/stat)
	w=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -m 300 -H "Content-Type: application/json" --data-binary @${TMPDIR:-/tmp}/t2vam-req$n.json 127.0.0.1:$port/vectors)
	c1=$(awk '{print $14+$15}' /proc/$pid/stat)
	echo "N=$n status+wall: $w  server CPU: $(echo "scale=3; ($c1-$c0)/$tck" | bc) s"
done
kill $pid
