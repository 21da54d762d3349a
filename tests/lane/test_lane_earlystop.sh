#!/bin/bash
# Early stop end to end on the fake Slurm: with early_stop rules sbagent puts
# the numbers of the metrics file into every heartbeat, and the first
# rule that holds stops the command (TERM to its group); the finish record
# says which rule, with the value, the results present are hashed, and the
# child is class `stopped`, never `succeeded`.  A rule whose `after` has not
# passed, or whose metric never appears, stops nothing.
. "$(dirname "$0")/../e2e/lib.sh"

# a command that writes a rising loss into its metrics file, non-atomically
# (a half-written file at a heartbeat is not an error), for up to 40 s
cat > rising.sh <<'SH'
i=0
while [ $i -lt 200 ]; do
	i=$((i + 1))
	printf '{"loss": %d, "step": %d}' $i $i > "$SB_METRICS_FILE"
	echo step $i > out.txt
	sleep 0.2
done
SH
# a loss of 10 from the start, for a few seconds
cat > flat.sh <<'SH'
printf '{"loss": 10}' > "$SB_METRICS_FILE"
sleep "$1"
SH

write_spec fire.yaml "name: es-fire
command: [sh, $PWD/rising.sh]
heartbeat: 1
metrics: metrics.json
results: [out.txt, metrics.json]
early_stop:
  - {metric: accuracy, below: 0.0001}
  - {metric: loss, above: 5}"
write_spec late.yaml "name: es-late
command: [sh, $PWD/flat.sh, '3']
heartbeat: 1
metrics: metrics.json
early_stop:
  - {metric: loss, above: 5, after: 3600}"
write_spec absent.yaml "name: es-absent
command: [sh, $PWD/flat.sh, '3']
heartbeat: 1
metrics: metrics.json
early_stop:
  - {metric: val_loss, above: 0}"

start=$(date +%s)
for s in fire late absent; do
	"$SBCTL" submit $s.yaml --json > $s.submit.json
	expect "submit $s exits 0" "$?" 0
done
wait_for 60 all_done
took=$(( $(date +%s) - start ))
expect_match "the rising loss was stopped long before its 40 s ($took s)" "$took" '^([0-9]|[12][0-9])$'

# --- the rule that fires
dir=$(jqf fire.submit.json .benchmark.dir)
st fire.json "$dir"
expect "status of a stopped child exits 3" "$?" 3
expect_child fire.json 0 stopped \
	'^early stop: loss=[0-9]+ above 5 after 0 s, as declared$'
expect "counts.stopped is 1" "$(jqf fire.json .counts.stopped)" 1
expect "counts.succeeded is 0" "$(jqf fire.json .counts.succeeded)" 0
expect "counts has the twelve classes" "$(jq '.counts | length' fire.json)" 12
log=$(log_of "$dir" 0)
"$SBCTL" log "$log" --json > fire.log.json
expect "the log verifies" "$?" 0
fin=$(jq -c 'select(.type=="finish")' fire.log.json)
expect "finish: early_stop names the second rule" \
	"$(jq -r '.early_stop | "\(.index) \(.metric) \(.rule) \(.declared_after_s)"' <<<"$fin")" "1 loss above 5 0"
value=$(jq -r '.early_stop.value' <<<"$fin")
expect_match "finish: the value held the rule ($value)" "$value" '^([6-9]|[1-9][0-9]+)$'
expect "finish: the command died by TERM" "$(jq -r '.signal' <<<"$fin")" 15
expect "finish: both results hashed" \
	"$(jq -r '[.results[] | select(.sha256 | length == 64)] | length' <<<"$fin")" 2
sum=$(sha256sum "$dir/runs/0/out.txt" | cut -d' ' -f1)
expect "finish: out.txt's digest is the file's" \
	"$(jq -r '.results[] | select(.path=="out.txt") | .sha256' <<<"$fin")" "$sum"
expect "a signal record says TERM was sent for the early stop" \
	"$(jq -r 'select(.type=="signal") | "\(.name) \(.action)"' fire.log.json | head -n 1)" \
	"TERM sent_for_early_stop"
hb=$(jq -r 'select(.type=="heartbeat" and .metrics.loss != null) | .metrics.loss' fire.log.json | wc -l)
expect_match "heartbeats carry the latest metrics ($hb with a loss)" "$hb" '^[1-9][0-9]*$'
"$SBCTL" log "$log" > fire.log.txt
expect_match "sbctl log's text shows a heartbeat's metrics" "$(grep ' heartbeat ' fire.log.txt)" \
	' metrics\{loss=[0-9]+ step=[0-9]+\}'
expect_match "sbctl log's text shows the early stop" "$(grep ' finish ' fire.log.txt)" \
	' early_stop\{after_s=[0-9.]+ declared_after_s=0(\.0)? index=1 metric=loss rule=above 5 value=[0-9]+\}'
"$SBCTL" analyze "$dir" --json > fire.an.json
expect "analyze lists the stopped child among the excluded" \
	"$(jq -r '[.excluded[] | .class] | join(",")' fire.an.json)" stopped
"$SBCTL" rerun "$dir" --only stopped --dry-run > rerun.out 2>&1
expect "rerun --only stopped is accepted" "$?" 0

# --- after has not passed; the metric never appears
for s in late absent; do
	d=$(jqf $s.submit.json .benchmark.dir)
	st $s.json "$d"
	expect "$s: status exits 0" "$?" 0
	expect_child $s.json 0 succeeded '^$'
	expect "$s: the finish has no early_stop" \
		"$("$SBCTL" log "$(log_of "$d" 0)" --json | jq -r 'select(.type=="finish") | .early_stop')" null
done

# --- the rule whose metric never appeared is said, by status, analyze and --check
d=$(jqf absent.submit.json .benchmark.dir)
"$SBCTL" status "$d" --json > /dev/null 2> absent.err
expect "status says the rule's metric never appeared, and what the file has" "$(cat absent.err)" \
	"sbctl status: warning: early_stop rule 1: metric 'val_loss' never appeared in the metrics file of a finished child, so the rule never stopped one; the file has: loss"
"$SBCTL" analyze "$d" > /dev/null 2> absent.an.err
expect_match "analyze says it too" "$(cat absent.an.err)" "^sbctl analyze: warning: early_stop rule 1: metric 'val_loss' never appeared"
dl=$(jqf late.submit.json .benchmark.dir)
"$SBCTL" status "$dl" > /dev/null 2> late.err
expect "a rule whose metric appeared (its after not passed): nothing said" "$(cat late.err)" ""
cat > twometrics.sh <<'SH'
printf '{"loss": 1, "acc": 0.5}' > "$SB_METRICS_FILE"
SH
write_spec absent2.yaml "name: es-absent2
command: [sh, $PWD/twometrics.sh]
metrics: metrics.json
early_stop:
  - {metric: loss, above: 5}
  - {metric: train_loss, above: 5}"
"$SBCTL" submit absent2.yaml --check=30 --json > absent2.json 2> absent2.err
expect "submit --check of a misspelt rule: exit 0 (nothing failed)" "$?" 0
expect "--check reports the rule whose metric never appeared" "$(jq -r '.check.warnings[]' absent2.json)" \
	"early_stop rule 2: metric 'train_loss' never appeared in the metrics file of a finished child, so the rule never stopped one; the file has: acc, loss"

# --- a rule met between two heartbeats, then an exit 0: stopped on the final metrics
cat > diverged.sh <<'SH'
printf '{"loss": 289}' > "$SB_METRICS_FILE"
exit 0
SH
write_spec quick.yaml "name: es-quick
command: [sh, $PWD/diverged.sh]
heartbeat: 60
metrics: metrics.json
early_stop:
  - {metric: loss, above: 5}"
"$SBCTL" submit quick.yaml --json > quick.submit.json
wait_for 30 all_done
d=$(jqf quick.submit.json .benchmark.dir)
st quick.json "$d"
expect "a diverged run that exited 0 between heartbeats: status exits 3" "$?" 3
expect_child quick.json 0 stopped \
	'^early stop: loss=289 above 5 after 0 s, as declared; held on the final metrics, after the command exited by itself$'
"$SBCTL" log "$(log_of "$d" 0)" --json > quick.log.json
expect "its finish: early_stop at_finish, exit 0, no signal record" \
	"$(jq -r 'select(.type=="finish") | "\(.early_stop.at_finish) \(.exit_code)"' quick.log.json) $(jq -r 'select(.type=="signal")' quick.log.json | wc -l)" "true 0 0"

# --- a metrics file caught half-written is no error: the next heartbeat reads it
cat > torn.sh <<'SH'
printf '{"loss": 10, "st' > "$SB_METRICS_FILE"
sleep 2.5
printf '{"loss": 10, "step": 3}' > "$SB_METRICS_FILE"
sleep 30
SH
write_spec torn.yaml "name: es-torn
command: [sh, $PWD/torn.sh]
heartbeat: 1
metrics: metrics.json
early_stop:
  - {metric: loss, above: 5}"
"$SBCTL" submit torn.yaml --json > torn.submit.json
wait_for 40 all_done
d=$(jqf torn.submit.json .benchmark.dir)
st torn.json "$d"
expect_child torn.json 0 stopped '^early stop: loss=10 above 5 after 0 s, as declared$'
"$SBCTL" log "$(log_of "$d" 0)" --json > torn.log.json
expect "the heartbeats of the half-written file carry no metrics, the later ones do" \
	"$(jq -r 'select(.type=="heartbeat") | has("metrics")' torn.log.json | uniq | tr '\n' ' ')" "false true "
expect "the rule held only once the file was whole (after 2.5 s)" \
	"$(jq -r 'select(.type=="finish") | .early_stop.after_s >= 2.5' torn.log.json)" true
expect "the half-written file is no error in the finish" \
	"$(jq -r 'select(.type=="finish") | [.metrics_error, .metrics.step] | @tsv' torn.log.json)" "$(printf '\t3')"

# --- no rules: a heartbeat carries the metrics only when they changed (the
# learning curve): the first one after the file was written, not the next
write_spec norule.yaml "name: es-norule
command: [sh, $PWD/flat.sh, '2.5']
heartbeat: 1
metrics: metrics.json"
"$SBCTL" submit norule.yaml --json > norule.submit.json
wait_for 30 all_done
d=$(jqf norule.submit.json .benchmark.dir)
"$SBCTL" log "$(log_of "$d" 0)" --json > norule.log.json
expect "without rules a heartbeat has the metrics only when they changed" \
	"$(jq -r 'select(.type=="heartbeat") | has("metrics")' norule.log.json | tr '\n' ' ')" "true false "

t_done
