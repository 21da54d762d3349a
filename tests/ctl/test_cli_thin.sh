#!/bin/bash
# sbctl's command files are thin: each includes only public headers
# (<sbench/...>) plus cli/commands.h, cli/numarg.h and cli/options.h (ctl/cli/), and its object calls
# no sb_* function but those libsbench.so exports (the public headers'),
# the CLI's own (sb_cli_*), the number parser's (sb_parse_*) and the option parser's (sb_opt_*).
set -u
fails=0
not_yet=" "
map=$SB_BUILD/ctl/libsbench.map
objdir=$SB_BUILD/ctl/CMakeFiles/sbctl.dir/cli
[ -s "$map" ] || { echo "not ok - no $map"; exit 1; }
exported=$(grep -o 'sb_[a-z0-9_]*' "$map" | sort -u)
n=0
for f in "$SB_SRC"/ctl/cli/cmd_*.c; do
	name=${f##*/}
	case $not_yet in *" $name "*) continue ;; esac
	n=$((n + 1))
	bad=$(grep -o '#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' |
		grep -v -x 'cli/commands.h\|cli/numarg.h\|cli/options.h\|sbench/[a-z]*\.h')
	if [ -n "$bad" ]; then
		echo "not ok - $name includes private headers: $bad"; fails=$((fails + 1))
	else
		echo "ok - $name includes only public headers"
	fi
	obj=$objdir/$name.o
	[ -f "$obj" ] || { echo "not ok - no object $obj"; fails=$((fails + 1)); continue; }
	calls=$(nm -u "$obj" | awk '{ print $NF }' | grep '^sb_' | grep -v '^sb_cli_\|^sb_parse_\|^sb_opt_' | sort -u)
	internal=$(comm -23 <(printf '%s\n' "$calls" | sed '/^$/d') <(printf '%s\n' "$exported"))
	if [ -n "$internal" ]; then
		echo "not ok - $name calls internal functions:" $internal; fails=$((fails + 1))
	else
		echo "ok - $name calls only the public API"
	fi
done
[ "$n" -ge 7 ] || { echo "not ok - only $n command files checked"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "all $n command files are thin" || { echo "FAILED: $fails"; exit 1; }
