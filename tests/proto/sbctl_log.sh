#!/usr/bin/env bash
# sbctl log against crafted, truncated and tampered logs (the real binary).
. "$(dirname "$0")/../cli-lib.sh"
tamper=${SB_BUILD:?}/tests/sbtamper
golden=${SB_TEST_DATA:?}/golden
# a PATH that does not exist may be a benchmark name: looked up in a
# private index, never the user's
export SB_INDEX=$work/index.sqlite

last_has() { tail -n 1 out | grep -qF -- "$1" || fail "last line lacks '$1': $(tail -n 1 out)"; }

"$tamper" golden-key key
cp "$golden/log-4.sbe" a.log

# --- a good log
run 0 "$sbctl" log a.log --key key
has out "summary: a.log: 4 records, 4 verified, tail ok"
run 0 "$sbctl" log a.log --key key --json
[ "$(wc -l <out)" = 5 ] || fail "expected 4 records and a summary"
last_has '{"format":1,"summary":{"files":1,"records":4,"verified":4,"tail":"ok"'
has out '"seq":0,"type":"start","time":"2023-11-14T22:13:20.000000000Z"'
has out '"child":4,'
has out '"attempt":0,'
has out '"job_id":"1234"'
has out '"host":"node001","pid":4242,"verified":true'
has out '"command":["python","train.py","--lr=0.1"]'
has out '"exit_code":0,'
has out '"signal":null,'
has out '"wall_s":121.5'
has out '"records":4,'
has out '"metrics":{"accuracy":0.9,"loss":0.125}'
has out '{"missing":true,"path":"model.pt"}'
has out '"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"'
head=$(tail -n 1 out | sed 's/.*"head":"\([0-9a-f:]*\)".*/\1/')
case $head in 4:????????????????????????????????????????????????????????????????) ;;
	*) fail "no head in the summary: $head" ;; esac

# --- truncation: at a record boundary the log is shorter but fine; inside
# a record it is a torn tail, never tampering
offsets=$("$tamper" frames a.log | awk '{print $2}')
third=$(echo "$offsets" | sed -n 4p)
"$tamper" truncate a.log "$third" cut.log
run 0 "$sbctl" log cut.log --key key --json
last_has '"records":3,"verified":3,"tail":"ok"'
"$tamper" truncate a.log $((third + 7)) torn.log
run 3 "$sbctl" log torn.log --key key --json
last_has '"records":3,"verified":3,"tail":"torn_tail"'
has err "record 3 at byte $third"
has err "not tampering"
run 3 "$sbctl" log torn.log --key key
has out "summary: torn.log: 3 records, 3 verified, tail torn_tail: record 3 at byte $third"

# --- rollback against a head seen before
run 3 "$sbctl" log cut.log --key key --head "$head"
has out "tail rollback"
has err "(rollback)"
run 0 "$sbctl" log a.log --key key --head "$head"
run 2 "$sbctl" log a.log --key key --head "4:nothex"
run 2 "$sbctl" log a.log --key key --head "0:$(printf '%064d' 0)"

# --- tampering
second=$(echo "$offsets" | sed -n 2p)
"$tamper" recrc a.log 1 recrc.log
run 3 "$sbctl" log recrc.log --key key
has out "record 1 at byte $second: tag does not verify (forged or wrong key)"
has err "recrc.log: record 1 at byte $second: tag does not verify (forged or wrong key)"
"$tamper" flip a.log $((8 * second + 8 * 40 + 3)) flip.log
run 3 "$sbctl" log flip.log --key key --json
last_has '"verified":1,"tail":"corrupt"'
"$sbctl" keygen other.key
run 3 "$sbctl" log a.log --key other.key --json
last_has '"records":4,"verified":0,"tail":"bad_mac"'
has out '"verified":false'
"$tamper" swap a.log 1 2 swap.log
run 3 "$sbctl" log swap.log --key key --json
last_has '"verified":1,"tail":"chain_break"'
"$tamper" drop a.log 1 drop.log
run 3 "$sbctl" log drop.log --key key --json
last_has '"verified":1,"tail":"chain_break"'
"$tamper" dup a.log 2 dup.log
run 3 "$sbctl" log dup.log --key key --json
last_has '"verified":3,"tail":"chain_break"'
"$tamper" write key child5.log 4 5
"$tamper" splice a.log 2 child5.log 2 splice.log
run 3 "$sbctl" log splice.log --key key --json
last_has '"verified":2,"tail":"foreign"'
"$tamper" append a.log child5.log 0 appended.log
run 3 "$sbctl" log appended.log --key key --json
last_has '"verified":4,"tail":"foreign"'
"$tamper" zero a.log 64 zero.log
run 3 "$sbctl" log zero.log --key key --json
last_has '"verified":4,"tail":"torn_tail"'

# --- usage and input errors
run 2 "$sbctl" log
run 2 "$sbctl" log missing.log --key key
run 2 "$sbctl" log a.log
has err "give --key KEYFILE"
run 2 "$sbctl" log a.log --key missing.key
run 2 "$sbctl" log a.log --key key --bogus
run 0 "$sbctl" log --help

# --- a benchmark directory: key from keys/, every file under events/
"$tamper" gendir bench 5 3
mkdir -p bench/runs/0
run 0 "$sbctl" log bench --json
[ "$(grep -c '"summary"' out)" = 6 ] || fail "expected 5 file summaries and the overall one"
last_has '{"format":1,"summary":{"files":5,"records":15,"verified":15,"tail":"ok"}}'
has out '"path":"bench/events/000/c0-a0-r0.log"'
run 0 "$sbctl" log bench/runs/0 --json
last_has '"files":5,"records":15'
run 0 "$sbctl" log bench/events/000/c3-a0-r0.log --json
last_has '"files":1,"records":3'
run 0 "$sbctl" log bench
has out "== bench/events/000/c0-a0-r0.log"
last_has "total: 5 files, 15 records, 15 verified, tail ok"
# one torn, one forged file: the overall tail is the tamper class
"$tamper" truncate bench/events/000/c1-a0-r0.log 100 t && mv t bench/events/000/c1-a0-r0.log
"$tamper" recrc bench/events/000/c3-a0-r0.log 0 t && mv t bench/events/000/c3-a0-r0.log
run 3 "$sbctl" log bench --json
last_has '"files":5,"records":12,"verified":9,"tail":"bad_mac"'
has out '"path":"bench/events/000/c1-a0-r0.log","records":0,"verified":0,"tail":"torn_tail"'
has err "c3-a0-r0.log: record 0 at byte 0: tag does not verify"
run 2 "$sbctl" log bench --head "$head"

finish sbctl_log
