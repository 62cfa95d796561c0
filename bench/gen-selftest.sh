#!/bin/sh
# gen-selftest.sh: self-test of bench/isograph-gen (determinism, counts,
# option errors).  Usage: sh bench/gen-selftest.sh   (builds the generator
# if needed).  Last line of output: "N passed, N failed"; exit 1 on failure.
here=$(cd "$(dirname "$0")" && pwd)
gen="$here/isograph-gen"
if [ ! -x "$gen" ] || [ "$here/isograph-gen.c" -nt "$gen" ]; then
	make -s -C "$here" gen || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-selftest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else bad "$desc"; fi; }

# 1. same arguments + seed => byte-identical output, both workloads and formats
for wl in list-append rw-register; do
	for fmt in edn csv; do
		extra=""
		[ "$wl" = rw-register ] && extra="--wal $tmp/a.wal"
		"$gen" --workload $wl --format $fmt --txns 20000 --seed 12345 --distribution hot \
			--inject G0,G-single,G2-item --inject-every 5000 $extra --output "$tmp/a.$fmt" 2>/dev/null
		[ "$wl" = rw-register ] && extra="--wal $tmp/b.wal"
		"$gen" --workload $wl --format $fmt --txns 20000 --seed 12345 --distribution hot \
			--inject G0,G-single,G2-item --inject-every 5000 $extra > "$tmp/b.$fmt" 2>/dev/null
		check "$wl $fmt: same seed gives identical bytes" cmp -s "$tmp/a.$fmt" "$tmp/b.$fmt"
		check "$wl $fmt: output is not empty" test -s "$tmp/a.$fmt"
		if [ "$wl" = rw-register ]; then
			check "$wl $fmt: identical WAL" cmp -s "$tmp/a.wal" "$tmp/b.wal"
		fi
	done
done

# 2. a different seed gives a different history
"$gen" --txns 2000 --seed 1 > "$tmp/s1.edn"
"$gen" --txns 2000 --seed 2 > "$tmp/s2.edn"
check "different seeds differ" sh -c "! cmp -s '$tmp/s1.edn' '$tmp/s2.edn'"

# 3. --txns 1000: exactly 1000 invocations and 1000 completions
for wl in list-append rw-register; do
	"$gen" --workload $wl --txns 1000 --seed 7 > "$tmp/t.edn"
	n=$(grep -c ':type :invoke' "$tmp/t.edn")
	check "$wl --txns 1000: 1000 :invoke lines (got $n)" test "$n" -eq 1000
	n=$(grep -E -c ':type :(ok|fail|info), :f :txn' "$tmp/t.edn")
	check "$wl --txns 1000: 1000 completions (got $n)" test "$n" -eq 1000
	"$gen" --workload $wl --txns 1000 --seed 7 --inject G1c,garbage-read,internal > "$tmp/t.edn"
	n=$(grep -c ':type :invoke' "$tmp/t.edn")
	check "$wl --txns 1000 with injections: 1000 :invoke lines (got $n)" test "$n" -eq 1000
done

# 4. :index is 0-based and consecutive
"$gen" --txns 3000 --seed 9 > "$tmp/i.edn"
check ":index consecutive from 0" sh -c "sed 's/.*:index \([0-9]*\)}$/\1/' '$tmp/i.edn' | awk '\$1 != NR - 1 { exit 1 }'"

# 5. csv: header + one row per micro-op of the completions
"$gen" --txns 1000 --seed 7 --format csv > "$tmp/t.csv"
"$gen" --txns 1000 --seed 7 > "$tmp/t.edn"
rows=$(($(wc -l < "$tmp/t.csv") - 1))
ops=$(grep -E ':type :(ok|fail|info), :f :txn' "$tmp/t.edn" | grep -o '\[:\(r\|append\) ' | wc -l)
check "csv rows = completion micro-ops ($rows = $ops)" test "$rows" -eq "$ops"
check "csv header" sh -c "head -1 '$tmp/t.csv' | grep -qx 'history_id,txn_id,process,status,invoke_time,complete_time,pos,op,key,value,read_value,read_list'"

# 6. --shape two-waves: every wave-1 completion before any wave-2 invocation
"$gen" --shape two-waves --txns 1000 > "$tmp/w.edn"
n=$(grep -c ':type :invoke' "$tmp/w.edn")
check "two-waves --txns 1000: 1000 :invoke lines (got $n)" test "$n" -eq 1000
check "two-waves: the last wave-1 :ok (line 1000) comes before the first wave-2 :invoke (line 1001)" \
	sh -c "sed -n '1000p' '$tmp/w.edn' | grep -q ':type :ok' && sed -n '1001p' '$tmp/w.edn' | grep -q ':type :invoke, :f :txn, :value \[\[:r 0 nil\]\]'"
check ":index consecutive from 0 (two-waves)" sh -c "sed 's/.*:index \([0-9]*\)}$/\1/' '$tmp/w.edn' | awk '\$1 != NR - 1 { exit 1 }'"

# 7. bad options exit with status 2 and a message on stderr
for args in "--bogus" "--txns" "--txns -5" "--workload foo" "--read-ratio 1.5" "--inject G9" \
	"--ops-min 5 --ops-max 2" "--wal x.wal" "--workload rw-register --inject duplicate-elements" "stray" \
	"--shape wave" "--shape two-waves --format csv"; do
	"$gen" $args > "$tmp/o" 2> "$tmp/e"
	rc=$?
	check "bad option '$args' exits 2 with a message" sh -c "test $rc -eq 2 && test -s '$tmp/e' && ! test -s '$tmp/o'"
done
check "--help exits 0" sh -c "'$gen' --help > /dev/null"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
