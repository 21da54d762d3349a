#!/bin/bash
# sbctl status on tampered evidence: a result changed or removed after the
# verified finish, a flipped bit, a record spliced in from another child, a
# log forged with another key, a log transplanted from another child, and a
# finished log truncated at every record boundary and inside records.  None
# of them may ever be called succeeded.
. "$(dirname "$0")/lib.sh"

TAMPER=${SB_BUILD:?SB_BUILD must name the build directory}/tests/sbtamper

dir=$(submit_spec tam "name: tam
command: [sh, -c, 'echo ok {x} > out.txt']
parameters:
  x: [0, 1, 2, 3, 4, 5, 6]
heartbeat: 1
results: [out.txt]")
digest=$(jqf tam.submit.json .benchmark.digest)
wait_for 20 all_done
st s0.json "$dir" --settle 0
expect "before tampering: exit 0" "$?" 0
expect "before tampering: all succeeded" "$(jqf s0.json .counts.succeeded)" 7
for c in 0 1 2 3 4 5 6; do cp "$(log_of "$dir" $c)" "orig.$c.log"; done

# child 0: the result rewritten after the finish, same size, mtime put back
# (the ctime still changes: the cached hash is not trusted)
cp -p "$dir/runs/0/out.txt" ref.txt
echo 'XX 0' > "$dir/runs/0/out.txt"
touch -r ref.txt "$dir/runs/0/out.txt"
expect "child 0: same size" "$(stat -c %s "$dir/runs/0/out.txt")" "$(stat -c %s ref.txt)"
# child 1: one bit of the last record's tag flipped
f=$(log_of "$dir" 1)
"$TAMPER" flip "orig.1.log" $(( $(stat -c %s orig.1.log) * 8 - 1 )) t.log && mv t.log "$f"
# child 2: its start record replaced by child 3's (same key, another child)
f=$(log_of "$dir" 2)
"$TAMPER" splice orig.2.log 0 orig.3.log 0 t.log && mv t.log "$f"
# child 3: the whole log forged with another key (a plausible finish, exit 0)
f=$(log_of "$dir" 3)
"$TAMPER" golden-key other.key
"$TAMPER" write other.key t.log 3 3 0 "$digest" && mv t.log "$f"
# child 5: the result removed
rm "$dir/runs/5/out.txt"
# child 6: child 4's whole log in child 6's place
cp orig.4.log "$(log_of "$dir" 6)"

st s1.json "$dir" --settle 0
expect "tampered: exit 3" "$?" 3
expect_child s1.json 0 invalid "^result 'out.txt' changed after the verified finish \\(sha256 [0-9a-f]{12}, not [0-9a-f]{12}\\)$"
expect_child s1.json 1 invalid '^the log does not verify: bad_mac$'
expect_child s1.json 2 invalid '^the log does not verify: foreign$'
expect_child s1.json 3 invalid '^the log does not verify: bad_mac$'
expect_child s1.json 4 succeeded '^$'
expect_child s1.json 5 invalid "^result 'out.txt' is gone since the verified finish$"
expect_child s1.json 6 invalid '^the log does not verify: foreign$'
expect "tampered: counts" "$(jq -c '[.counts.invalid, .counts.succeeded]' s1.json)" "[6,1]"
st s2.json "$dir" --offline
expect "tampered, --offline: the same classes" "$(classes s2.json)" "$(classes s1.json)"
rm -f "$SB_INDEX"
st s3.json "$dir" --settle 0 --rehash
expect "tampered, no index, --rehash: the same bytes" "$(cmp s1.json s3.json && echo same)" same
# the result put back as it was: the finish's digest matches again
cp -p ref.txt "$dir/runs/0/out.txt"
st s4.json "$dir" --settle 0
expect_child s4.json 0 succeeded '^$'

# child 4: its finished log truncated at every record boundary and a few
# bytes into every record, with and without the local index (which knows
# the verified head: a shorter log is then a rollback).  Never succeeded.
f=$(log_of "$dir" 4)
size=$(stat -c %s orig.4.log)
offsets=$("$TAMPER" frames orig.4.log | awk '{ print $2; print $2 + 3; print $2 + int($3 / 2) }')
expect_match "child 4's log has start, heartbeats and finish" "$(log_types "$f")" '^start (heartbeat )*finish $'
# an index that knows child 4's whole log
cp orig.4.log "$f"
rm -f "$SB_INDEX"
st s4.json "$dir" --settle 0
expect_child s4.json 4 succeeded '^$'
cp "$SB_INDEX" known.index
n=0
for off in $offsets $((size - 1)); do
	[ "$off" -lt "$size" ] || continue
	"$TAMPER" truncate orig.4.log "$off" t.log && mv t.log "$f"
	# with the index: any shorter log is a rollback
	cp known.index "$SB_INDEX"
	st tr.json "$dir" --settle 0
	expect "truncated at $off of $size, with the index: a rollback" \
		"$(jq -r '.children[4] | .class + ": " + .reason' tr.json)" "invalid: the log does not verify: rollback"
	# without it (a fresh machine): no finish record, never a success
	rm -f "$SB_INDEX"
	st tr.json "$dir" --settle 0
	cls=$(jqf tr.json '.children[4].class')
	case $cls in
	incomplete | inconsistent) ;;
	*) expect "truncated at $off of $size, without the index: incomplete or inconsistent" \
		"$cls: $(jqf tr.json '.children[4].reason')" "incomplete or inconsistent" ;;
	esac
	n=$((n + 1))
done
expect_match "truncations tried ($n)" "$n" '^([6-9]|[1-9][0-9]+)$'
cp orig.4.log "$f"
rm -f "$SB_INDEX"
st s5.json "$dir" --settle 0
expect_child s5.json 4 succeeded '^$'
"$TAMPER" truncate orig.4.log $((size - 5)) t.log && mv t.log "$f"
rm -f "$SB_INDEX"
st s6.json "$dir" --settle 0
expect_child s6.json 4 incomplete "^started, but no finish record \\(torn last record\\), and job [0-9]+_4 is COMPLETED$"
cp orig.4.log "$f"
st s7.json "$dir" --settle 0
expect_child s7.json 4 succeeded '^$'
# with the index knowing the full log, a copy cut to its first records is a rollback
second=$("$TAMPER" frames orig.4.log | awk 'NR == 2 { print $2 }')
"$TAMPER" truncate orig.4.log "$second" t.log && mv t.log "$f"
st s8.json "$dir" --settle 0
expect_child s8.json 4 invalid '^the log does not verify: rollback$'

t_done
