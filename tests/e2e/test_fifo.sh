#!/bin/bash
# Nothing waits on a FIFO (docs/threat-model.md): a result, a Slurm output
# file or a spec replaced by a named pipe with no writer is evidence of
# nothing, or refused, and every command returns.  Each command runs under
# `timeout 20`: a hang is exit 124, a failure here.
. "$(dirname "$0")/lib.sh"

dir=$(submit_spec pipe 'name: pipe
command: [sh, -c, "echo ok > out.txt; echo some stderr >&2"]
parameters:
  i: [0, 1]
results: [out.txt]')
"$SBCTL" wait "$dir" --interval 0.2 --timeout 60 > /dev/null
expect "both children succeed" "$?" 0

# a result replaced by a FIFO after the finish: no longer the result that was hashed
rm "$dir/runs/1/out.txt" && mkfifo "$dir/runs/1/out.txt"
timeout 20 "$SBCTL" status "$dir" --json > s.json
expect "status returns (3: not all succeeded)" "$?" 3
expect_child s.json 1 invalid "^result 'out.txt' is gone since the verified finish"
timeout 20 "$SBCTL" analyze "$dir" --json > /dev/null
expect "analyze returns" "$?" 3
timeout 20 "$SBCTL" report "$dir" -o r.html > /dev/null 2>&1
expect "report returns" "$?" 3

# a Slurm output file replaced by a FIFO: output and the report skip it
err=$("$SBCTL" output "$dir" 0 | sed -n 's/^== \(.*\.err\)$/\1/p' | head -n 1)
expect_match "child 0 has a Slurm stderr file" "$err" "slurm-.*\.err$"
rm "$err" && mkfifo "$err"
timeout 20 "$SBCTL" output "$dir" 0 > o.out
expect "output returns" "$?" 0
timeout 20 "$SBCTL" report "$dir" -o r2.html > /dev/null 2>&1
expect "report returns with a FIFO for a stderr it shows" "$?" 3

# a spec that is a FIFO: refused, not read
mkfifo fifo.yaml
timeout 20 "$SBCTL" plan fifo.yaml > /dev/null 2> p.err
expect "plan of a FIFO: exit 2" "$?" 2
expect_match "it says why" "$(cat p.err)" "not a regular file"
timeout 20 "$SBCTL" submit fifo.yaml > /dev/null 2> sub.err
expect "submit of a FIFO: exit 2" "$?" 2
t_done
