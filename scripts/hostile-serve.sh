#!/usr/bin/env bash
# The hostile-input checks against a real `text2vec-am serve` on loopback:
#  1. the 832 KB /explain request (4,000 unseen words + 788,000 bytes (780 KB is the issue's rounding) of '-') under GOMEMLIMIT=1GiB:
#     status, response size, peak RSS (VmHWM), the server alive after it;
#  2. eight slow-body connections (Content-Length 100000, one byte every 2 s) open,
#     then 20 /vectors probes: how many are answered 200;
#  3. FRESH_CONNS (default 40) connections each sending an 8 MiB body but its last byte, and a fresh
#     one as soon as it is answered, for FRESH_SECONDS (default 60), beside a /vectors probe every
#     0.5 s (scripts/freshbodies.go): probes answered 200, their p50 and max time, bodies cut, peak RSS.
# usage: scripts/hostile-serve.sh [path/to/text2vec-am]   (default: go build into a temp dir)
set -euo pipefail
bin=${1:-}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	go build -o "$tmp/text2vec-am" . && bin="$tmp/text2vec-am"
fi
port=${PORT:-18313}
GOMEMLIMIT=1GiB "$bin" serve --addr 127.0.0.1:$port --log-level warn 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 100); do curl -fs "127.0.0.1:$port/.well-known/ready" >/dev/null && break; sleep 0.1; done

# 1. the explain bomb
{
	printf '{"text":"'
	for i in $(seq 1 4000); do
		printf 'qx%06dvz ' "$i"
		[ "$i" = 2000 ] && head -c 788000 /dev/zero | tr '\0' '-' && printf ' '
	done
	printf '"}'
} >"$tmp/bomb.json"
echo "explain request: $(stat -c %s "$tmp/bomb.json") bytes"
code=$(curl -s -o "$tmp/explain.out" -w '%{http_code}' -H 'Content-Type: application/json' \
	--data-binary @"$tmp/bomb.json" "127.0.0.1:$port/explain")
echo "explain status $code, response $(stat -c %s "$tmp/explain.out") bytes"
grep -o '"words_omitted":[0-9]*\|"contexts_omitted":[0-9]*\|"truncated":true' "$tmp/explain.out" | tr '\n' ' '; echo
grep VmHWM /proc/$pid/status
kill -0 $pid && echo "server alive after /explain"
curl -s -o /dev/null -w 'ready after /explain: %{http_code}\n' "127.0.0.1:$port/.well-known/ready"

# 2. slow bodies
for k in $(seq 8); do
	(
		exec 3<>/dev/tcp/127.0.0.1/$port
		printf 'POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{' >&3
		for _ in $(seq 40); do sleep 2; printf ' ' >&3 || exit 0; done
	) &
done
sleep 3
ok=0
for i in $(seq 20); do
	c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
		-d '{"text":"nftables replaces iptables"}' "127.0.0.1:$port/vectors")
	[ "$c" = 200 ] && ok=$((ok + 1))
	sleep 0.5
done
echo "slow bodies open: $ok of 20 probes answered 200"
kill -0 $pid && echo "server alive after the slow bodies"
for j in $(jobs -p); do [ "$j" = "$pid" ] || kill "$j" 2>/dev/null || true; done

# 3. fresh held bodies
go run "$(dirname "$0")/freshbodies.go" -addr 127.0.0.1:$port -conns "${FRESH_CONNS:-40}" -dur "${FRESH_SECONDS:-60}s"
curl -s "127.0.0.1:$port/metrics" | grep '^t2vam_http_cut_for_room_total'
grep VmHWM /proc/$pid/status
kill -0 $pid && echo "server alive at the end"
